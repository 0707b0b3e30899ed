// Lenient JSON member reads for the agent output parsers.
#include "json_reads.h"

#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Stringifier.h>

#include <cmath>
#include <sstream>

namespace abx::plugins::adapters::json {

// Insertion order is kept so tool arguments reach clients in the order the
// model wrote them.
LineReader::LineReader() : parser_(new Poco::JSON::ParseHandler(true)) {}

ObjectPtr LineReader::parseObject(std::string_view line) {
  parser_.reset();
  try {
    auto value = parser_.parse(std::string(line));
    if (value.type() == typeid(ObjectPtr)) return value.extract<ObjectPtr>();
  } catch (const Poco::Exception&) {
  } catch (const std::exception&) {
  }
  return nullptr;
}

namespace {

// A present, non-null member; JSON null parses to an empty Var.
std::optional<Poco::Dynamic::Var> member(const ObjectPtr& o, const std::string& key) {
  if (!o || !o->has(key)) return std::nullopt;
  Poco::Dynamic::Var v = o->get(key);
  if (v.isEmpty()) return std::nullopt;
  return v;
}

std::string stringify(const Poco::Dynamic::Var& v) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(v, out);
  return out.str();
}

}  // namespace

std::string str(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  return v && v->isString() ? v->extract<std::string>() : std::string();
}

ObjectPtr obj(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  return v && v->type() == typeid(ObjectPtr) ? v->extract<ObjectPtr>() : nullptr;
}

ArrayPtr arr(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  return v && v->type() == typeid(ArrayPtr) ? v->extract<ArrayPtr>() : nullptr;
}

std::optional<std::int64_t> integer(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  if (!v || !v->isNumeric()) return std::nullopt;
  try {
    if (v->isInteger()) return v->convert<std::int64_t>();
    double d = v->convert<double>();
    if (std::isfinite(d) && d == std::floor(d)) return static_cast<std::int64_t>(d);
  } catch (const Poco::Exception&) {
  }
  return std::nullopt;
}

double number(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  if (!v || !v->isNumeric()) return 0;
  try {
    return v->convert<double>();
  } catch (const Poco::Exception&) {
    return 0;
  }
}

bool flag(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  return v && v->isBoolean() && v->extract<bool>();
}

std::string dump(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  return v ? stringify(*v) : std::string();
}

std::string dump(const ObjectPtr& o) { return o ? stringify(Poco::Dynamic::Var(o)) : "{}"; }

std::string text(const ObjectPtr& o, const std::string& key) {
  auto v = member(o, key);
  if (!v) return {};
  return v->isString() ? v->extract<std::string>() : stringify(*v);
}

}  // namespace abx::plugins::adapters::json
