// src/cost/toml_subset.cpp — see toml_subset.h.
#include "toml_subset.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ascendc_sim::cost::toml {
namespace {

[[noreturn]] void fail(const std::string& path, uint32_t line, const std::string& what) {
  throw std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
}

bool is_bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '-';
}

void skip_ws(const std::string& s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// After a value or header: only whitespace and an optional comment may follow.
void expect_line_end(const std::string& s, size_t i, const std::string& path, uint32_t line) {
  skip_ws(s, i);
  if (i < s.size() && s[i] != '#') {
    fail(path, line, "unexpected text after the value: '" + s.substr(i) + "'");
  }
}

std::string parse_bare_key(const std::string& s, size_t& i, const std::string& path,
                           uint32_t line) {
  size_t start = i;
  while (i < s.size() && is_bare_key_char(s[i])) ++i;
  if (i == start) fail(path, line, "expected a key (letters, digits, '_' or '-')");
  return s.substr(start, i - start);
}

std::string parse_string(const std::string& s, size_t& i, const std::string& path,
                         uint32_t line) {
  // s[i] == '"'
  ++i;
  std::string out;
  while (true) {
    if (i >= s.size()) fail(path, line, "unterminated string");
    char c = s[i++];
    if (c == '"') break;
    if (c == '\\') {
      if (i >= s.size()) fail(path, line, "unterminated escape in string");
      char e = s[i++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        default: fail(path, line, std::string("unsupported escape '\\") + e + "' in string");
      }
    } else {
      out += c;
    }
  }
  return out;
}

Value parse_number(const std::string& s, size_t& i, const std::string& path, uint32_t line,
                   const std::string& key) {
  size_t start = i;
  std::string digits;
  bool integer = true;
  bool prev_digit = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) digits += s[i++];
  while (i < s.size()) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      digits += c;
      prev_digit = true;
    } else if (c == '_') {
      if (!prev_digit || i + 1 >= s.size() || !(s[i + 1] >= '0' && s[i + 1] <= '9')) {
        fail(path, line, "key '" + key + "': '_' must sit between two digits");
      }
      prev_digit = false;
    } else if (c == '.' || c == 'e' || c == 'E' ||
               ((c == '+' || c == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))) {
      integer = false;
      digits += c;
      prev_digit = false;
    } else {
      break;
    }
    ++i;
  }
  std::string literal = s.substr(start, i - start);
  if (digits.empty() || digits == "+" || digits == "-") {
    fail(path, line, "key '" + key + "': expected a number, a \"string\" or true/false");
  }
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || errno == ERANGE || !std::isfinite(v)) {
    fail(path, line, "key '" + key + "': malformed number '" + literal + "'");
  }
  Value out;
  out.kind = Value::Kind::Number;
  out.number = v;
  out.is_integer = integer;
  out.text = literal;
  out.line = line;
  return out;
}

}  // namespace

Document parse(const std::string& text, const std::string& path) {
  Document doc;
  doc.path = path;
  doc.tables[""];
  std::string current;
  std::istringstream in(text);
  std::string raw;
  uint32_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    size_t i = 0;
    skip_ws(raw, i);
    if (i >= raw.size() || raw[i] == '#') continue;
    if (raw[i] == '[') {
      ++i;
      if (i < raw.size() && raw[i] == '[') fail(path, line, "arrays of tables are not supported");
      std::string name;
      while (true) {
        skip_ws(raw, i);
        std::string part = parse_bare_key(raw, i, path, line);
        name += part;
        skip_ws(raw, i);
        if (i < raw.size() && raw[i] == '.') {
          name += '.';
          ++i;
          continue;
        }
        break;
      }
      if (i >= raw.size() || raw[i] != ']') fail(path, line, "expected ']' to close the table header");
      ++i;
      expect_line_end(raw, i, path, line);
      if (doc.table_lines.count(name)) {
        fail(path, line, "table [" + name + "] is defined twice (first at line " +
                             std::to_string(doc.table_lines[name]) + ")");
      }
      doc.table_lines[name] = line;
      doc.tables[name];
      current = name;
      continue;
    }
    std::string key = parse_bare_key(raw, i, path, line);
    skip_ws(raw, i);
    if (i < raw.size() && raw[i] == '.') fail(path, line, "dotted key '" + key + ".…' is not supported; use a [table]");
    if (i >= raw.size() || raw[i] != '=') fail(path, line, "expected '=' after key '" + key + "'");
    ++i;
    skip_ws(raw, i);
    if (i >= raw.size()) fail(path, line, "key '" + key + "' has no value");
    Value v;
    char c = raw[i];
    if (c == '"') {
      if (raw.compare(i, 3, "\"\"\"") == 0) fail(path, line, "key '" + key + "': multi-line strings are not supported");
      v.kind = Value::Kind::String;
      v.text = parse_string(raw, i, path, line);
      v.line = line;
    } else if (raw.compare(i, 4, "true") == 0 && (i + 4 >= raw.size() || !is_bare_key_char(raw[i + 4]))) {
      v.kind = Value::Kind::Bool;
      v.boolean = true;
      v.text = "true";
      v.line = line;
      i += 4;
    } else if (raw.compare(i, 5, "false") == 0 && (i + 5 >= raw.size() || !is_bare_key_char(raw[i + 5]))) {
      v.kind = Value::Kind::Bool;
      v.boolean = false;
      v.text = "false";
      v.line = line;
      i += 5;
    } else if (c == '[' || c == '{' || c == '\'') {
      fail(path, line, "key '" + key + "': arrays, inline tables and literal strings are not supported");
    } else {
      v = parse_number(raw, i, path, line, key);
    }
    expect_line_end(raw, i, path, line);
    auto& table = doc.tables[current];
    auto it = table.find(key);
    if (it != table.end()) {
      fail(path, line, "key '" + key + "' is defined twice in [" + current + "] (first at line " +
                           std::to_string(it->second.line) + ")");
    }
    table.emplace(key, v);
  }
  return doc;
}

Document parse_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open profile file");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw std::runtime_error(path + ": error while reading profile file");
  return parse(ss.str(), path);
}

}  // namespace ascendc_sim::cost::toml
