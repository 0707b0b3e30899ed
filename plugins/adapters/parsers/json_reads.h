// Lenient reads from one parsed CLI output line (POCO JSON): a missing member
// or one of an unexpected type reads as empty, because agent CLIs add, drop
// and retype fields between versions and a parser must not fail on that.
#pragma once

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::adapters::json {

using ObjectPtr = Poco::JSON::Object::Ptr;
using ArrayPtr = Poco::JSON::Array::Ptr;

/** Parses one line into an object; nullptr when it is not a JSON object. */
class LineReader {
 public:
  LineReader();
  ObjectPtr parseObject(std::string_view line);

 private:
  Poco::JSON::Parser parser_;
};

std::string str(const ObjectPtr& o, const std::string& key);
ObjectPtr obj(const ObjectPtr& o, const std::string& key);
ArrayPtr arr(const ObjectPtr& o, const std::string& key);
/** An integral member (a whole double counts); nullopt when absent or null. */
std::optional<std::int64_t> integer(const ObjectPtr& o, const std::string& key);
double number(const ObjectPtr& o, const std::string& key);
bool flag(const ObjectPtr& o, const std::string& key);
/** A member as compact JSON text ("" when absent); strings stay quoted. */
std::string dump(const ObjectPtr& o, const std::string& key);
std::string dump(const ObjectPtr& o);
/** A string member as is, any other member as compact JSON. */
std::string text(const ObjectPtr& o, const std::string& key);

}  // namespace abx::plugins::adapters::json
