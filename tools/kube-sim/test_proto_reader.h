// A minimal Protocol Buffers wire-format reader for tests: decodes one
// message level into (field number, wire type, value) entries, so tests
// can check what protobuf_writer.h and openapi_v2.h produce without a
// protobuf library.  Test-only; not part of kubesim_lib.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace kubeon::kubesim::testing {

struct ProtoField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;   // wire types 0 and 1 (raw bits of a double)
  std::string bytes;     // wire type 2
};

// nullopt on malformed input (truncated varint or length, unknown wire type).
inline std::optional<std::vector<ProtoField>> DecodeProto(const std::string& data) {
  std::vector<ProtoField> out;
  size_t i = 0;
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= data.size()) return false;
      auto b = static_cast<unsigned char>(data[i++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  while (i < data.size()) {
    uint64_t tag = 0;
    if (!varint(tag)) return std::nullopt;
    ProtoField f;
    f.number = static_cast<uint32_t>(tag >> 3);
    f.wire_type = static_cast<uint32_t>(tag & 7);
    if (f.wire_type == 0) {
      if (!varint(f.varint)) return std::nullopt;
    } else if (f.wire_type == 1) {
      if (i + 8 > data.size()) return std::nullopt;
      for (int b = 0; b < 8; ++b) f.varint |= uint64_t{static_cast<unsigned char>(data[i + b])} << (8 * b);
      i += 8;
    } else if (f.wire_type == 2) {
      uint64_t len = 0;
      if (!varint(len) || len > data.size() - i) return std::nullopt;
      f.bytes = data.substr(i, len);
      i += len;
    } else {
      return std::nullopt;
    }
    out.push_back(std::move(f));
  }
  return out;
}

// Every length-delimited value of field `number` in `data`.
inline std::vector<std::string> ProtoAll(const std::string& data, uint32_t number) {
  std::vector<std::string> out;
  auto fields = DecodeProto(data);
  if (!fields) return out;
  for (const auto& f : *fields) {
    if (f.number == number && f.wire_type == 2) out.push_back(f.bytes);
  }
  return out;
}

// The first length-delimited value of field `number`, or "".
inline std::string ProtoOne(const std::string& data, uint32_t number) {
  auto all = ProtoAll(data, number);
  return all.empty() ? std::string() : all[0];
}

// The entry of a repeated Named* message (name = 1, value = 2) called `name`.
inline std::optional<std::string> ProtoNamed(const std::string& data, uint32_t number, const std::string& name) {
  for (const auto& entry : ProtoAll(data, number)) {
    if (ProtoOne(entry, 1) == name) return ProtoOne(entry, 2);
  }
  return std::nullopt;
}

}  // namespace kubeon::kubesim::testing
