// See protobuf_writer.h.
#include "protobuf_writer.h"

#include <cstring>

namespace kubeon::kubesim {

void ProtoWriter::RawVarint(uint64_t value) {
  while (value >= 0x80) {
    bytes_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  bytes_.push_back(static_cast<char>(value));
}

void ProtoWriter::Tag(uint32_t field, uint32_t wire_type) { RawVarint((uint64_t{field} << 3) | wire_type); }

void ProtoWriter::Varint(uint32_t field, uint64_t value) {
  Tag(field, 0);
  RawVarint(value);
}

void ProtoWriter::Double(uint32_t field, double value) {
  Tag(field, 1);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void ProtoWriter::String(uint32_t field, std::string_view value) {
  Tag(field, 2);
  RawVarint(value.size());
  bytes_.append(value.data(), value.size());
}

}  // namespace kubeon::kubesim
