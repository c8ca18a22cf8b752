// A minimal Protocol Buffers wire-format writer (proto3 encoding), enough to
// serialise the gnostic OpenAPI v2 Document kubectl downloads
// (openapi_v2.h) without a protobuf library.
//
// Fields are appended in call order; a message field is written as a
// length-delimited copy of another writer's bytes.  proto3 omits default
// values: callers skip empty strings, false and zero themselves; the
// writer encodes exactly what it is given.
//
// Wire types: 0 varint (int32/int64/uint64/bool/enum), 1 fixed64
// (double), 2 length-delimited (string, bytes, embedded message).
// REQUIRES: field numbers in [1, 2^29 - 1].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kubeon::kubesim {

class ProtoWriter {
 public:
  void Varint(uint32_t field, uint64_t value);
  void Bool(uint32_t field, bool value) { Varint(field, value ? 1 : 0); }
  void Double(uint32_t field, double value);
  void String(uint32_t field, std::string_view value);  // also bytes
  void Message(uint32_t field, const ProtoWriter& message) { String(field, message.bytes_); }

  const std::string& bytes() const { return bytes_; }
  bool empty() const { return bytes_.empty(); }

 private:
  void Tag(uint32_t field, uint32_t wire_type);
  void RawVarint(uint64_t value);

  std::string bytes_;
};

}  // namespace kubeon::kubesim
