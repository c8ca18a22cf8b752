// Tests for protobuf_writer.h against bytes derived by hand from the wire
// format (the examples of the Protocol Buffers encoding guide), and a
// round trip through the test reader (test_proto_reader.h).
#include "protobuf_writer.h"

#include <gtest/gtest.h>

#include "test_proto_reader.h"

namespace kubeon::kubesim {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

TEST(ProtoWriterTest, VarintFieldMatchesTheWireFormat) {
  ProtoWriter w;
  w.Varint(1, 150);  // tag (1 << 3 | 0) = 08, 150 = 0x96 0x01
  EXPECT_EQ(Hex(w.bytes()), "089601");
}

TEST(ProtoWriterTest, StringFieldIsLengthDelimited) {
  ProtoWriter w;
  w.String(2, "testing");  // tag (2 << 3 | 2) = 12, length 07
  EXPECT_EQ(Hex(w.bytes()), "120774657374696e67");
}

TEST(ProtoWriterTest, EmbeddedMessage) {
  ProtoWriter inner;
  inner.Varint(1, 150);
  ProtoWriter outer;
  outer.Message(3, inner);  // tag (3 << 3 | 2) = 1a, length 03
  EXPECT_EQ(Hex(outer.bytes()), "1a03089601");
}

TEST(ProtoWriterTest, BoolDoubleAndLargeFieldNumbers) {
  ProtoWriter w;
  w.Bool(31, true);        // tag 31 << 3 = 248 = f8 01, value 01
  w.Double(1, 1.0);        // tag 09, 1.0 = 0x3ff0000000000000 little-endian
  w.String(16, "");        // tag 16 << 3 | 2 = 130 = 82 01, length 00
  EXPECT_EQ(Hex(w.bytes()), "f80101" "09000000000000f03f" "820100");
}

TEST(ProtoWriterTest, LongStringsAndVarintsRoundTrip) {
  std::string long_text(300, 'x');
  ProtoWriter inner;
  inner.String(1, long_text);
  inner.Varint(2, 0xffffffffffffffffULL);
  ProtoWriter w;
  w.Message(5, inner);
  w.String(5, "second");
  auto fields = testing::DecodeProto(w.bytes());
  ASSERT_TRUE(fields.has_value());
  ASSERT_EQ(fields->size(), 2u);
  EXPECT_EQ((*fields)[1].bytes, "second");
  auto nested = testing::DecodeProto((*fields)[0].bytes);
  ASSERT_TRUE(nested.has_value());
  ASSERT_EQ(nested->size(), 2u);
  EXPECT_EQ((*nested)[0].bytes, long_text);
  EXPECT_EQ((*nested)[1].varint, 0xffffffffffffffffULL);
  EXPECT_EQ((*nested)[1].wire_type, 0u);
}

TEST(ProtoWriterTest, ReaderRejectsTruncatedInput) {
  ProtoWriter w;
  w.String(1, "abc");
  std::string cut = w.bytes().substr(0, w.bytes().size() - 1);
  EXPECT_FALSE(testing::DecodeProto(cut).has_value());
}

}  // namespace
}  // namespace kubeon::kubesim
