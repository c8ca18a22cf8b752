// See list_page.h.
#include "kube/list_page.h"

#include <simdjson.h>

#include <cstring>

#include "model/json_type_name.h"

namespace kubeon::kube {
namespace {

namespace od = simdjson::ondemand;

// Thrown inside the parse only, for a field of the wrong type; turned into a
// Status before ParseListPage returns.
struct FieldError {
  std::string message;
};

od::json_type TypeOf(od::value& v) {
  od::json_type t;
  if (const simdjson::error_code e = v.type().get(t); e != simdjson::SUCCESS) throw simdjson::simdjson_error(e);
  return t;
}

std::string StringField(od::value v, const std::string& path) {
  const od::json_type t = TypeOf(v);
  if (t != od::json_type::string) throw FieldError{path + ": expected a string, got " + model::JsonTypeName(t)};
  return std::string(std::string_view(v.get_string()));
}

void ReadMetadata(od::value v, ListPage* page) {
  const od::json_type t = TypeOf(v);
  if (t == od::json_type::null) return;
  if (t != od::json_type::object) throw FieldError{std::string("metadata: expected an object, got ") + model::JsonTypeName(t)};
  for (auto field : v.get_object()) {
    const std::string_view key = field.unescaped_key();
    if (key == "resourceVersion") {
      page->resource_version = StringField(field.value(), "metadata.resourceVersion");
    } else if (key == "continue") {
      page->continue_token = StringField(field.value(), "metadata.continue");
    }
  }
}

Status ReadItems(od::value v, size_t max_depth, const ListItemSink& sink, ListPage* page) {
  const od::json_type t = TypeOf(v);
  if (t == od::json_type::null) return Status::Ok();
  if (t != od::json_type::array) throw FieldError{std::string("items: expected an array, got ") + model::JsonTypeName(t)};
  size_t index = 0;
  for (auto element : v.get_array()) {
    od::value item = element.value();
    const std::string path = "items[" + std::to_string(index) + "]";
    const od::json_type it = TypeOf(item);
    if (it != od::json_type::object) throw FieldError{path + ": expected an object, got " + model::JsonTypeName(it)};
    od::object object = item.get_object();
    ListPageItem out;
    out.index = index;
    out.json = object.raw_json();
    const size_t last = out.json.find_last_not_of(" \t\r\n");  // raw_json keeps the whitespace after
    out.json = out.json.substr(0, last == std::string_view::npos ? 0 : last + 1);
    if (FindNestingBeyond(out.json, max_depth) != std::string_view::npos) {
      throw FieldError{path + ": nested deeper than " + std::to_string(max_depth) + " levels"};
    }
    object.reset();
    for (auto field : object) {
      const std::string_view key = field.unescaped_key();
      if (key == "kind") out.has_kind = true;
      if (key == "apiVersion") out.has_api_version = true;
    }
    Status s = sink(out);
    if (!s.ok()) return s;
    ++page->items;
    ++index;
  }
  return Status::Ok();
}

}  // namespace

Result<ListPage> ParseListPage(std::string& body, size_t max_depth, const ListItemSink& sink) {
  const size_t size = body.size();
  if (body.capacity() < size + simdjson::SIMDJSON_PADDING) body.reserve(size + simdjson::SIMDJSON_PADDING);
  const simdjson::padded_string_view text(body.data(), size, body.capacity());
  od::parser parser;
  od::document doc;
  ListPage page;
  try {
    if (const simdjson::error_code e = parser.iterate(text).get(doc); e != simdjson::SUCCESS) {
      return Status::Error(std::string("not valid JSON: ") + simdjson::error_message(e));
    }
    od::json_type top;
    if (const simdjson::error_code e = doc.type().get(top); e != simdjson::SUCCESS) {
      return Status::Error(std::string("not valid JSON: ") + simdjson::error_message(e));
    }
    if (top != od::json_type::object) {
      return Status::Error(std::string("expected a JSON object (a list), got ") + model::JsonTypeName(top));
    }
    for (auto field : doc.get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "kind") {
        page.kind = StringField(field.value(), "kind");
      } else if (key == "apiVersion") {
        page.api_version = StringField(field.value(), "apiVersion");
      } else if (key == "metadata") {
        ReadMetadata(field.value(), &page);
      } else if (key == "items") {
        Status s = ReadItems(field.value(), max_depth, sink, &page);
        if (!s.ok()) return s;
      }
    }
    const char* after = nullptr;
    if (doc.current_location().get(after) == simdjson::SUCCESS) {
      return Status::Error("not valid JSON: text after the top-level object");
    }
  } catch (const FieldError& e) {
    return Status::Error(e.message);
  } catch (const simdjson::simdjson_error& e) {
    return Status::Error(std::string("not valid JSON: ") + e.what());
  }
  return page;
}

}  // namespace kubeon::kube
