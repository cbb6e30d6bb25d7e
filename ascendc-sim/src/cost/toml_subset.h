// src/cost/toml_subset.h — a small, strict reader for the TOML subset the profile
// files use.
//
// Accepted: `[table]` and `[table.sub]` headers, `key = value` lines whose value is a
// number (integer or decimal, optional sign, `_` between digits, exponent), a basic
// string ("...", escapes \" \\ \n \t) or a boolean, full-line and trailing `#`
// comments, blank lines. Anything else (arrays, inline tables, dotted keys, multi-line
// strings, dates) is rejected with an error naming the file and line. Duplicate keys
// and duplicate tables are errors. The simulator must load profiles from a plain g++
// build without Rust, so this lives in C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ascendc_sim::cost::toml {

/// One `key = value` entry.
struct Value {
  enum class Kind : uint8_t { Number, String, Bool };
  Kind kind = Kind::Number;
  double number = 0;     // Kind::Number
  bool is_integer = false;  // the literal had no fraction or exponent
  std::string text;      // Kind::String: the decoded string; otherwise the literal
  bool boolean = false;  // Kind::Bool
  uint32_t line = 0;     // 1-based line of the entry
};

/// A parsed file: table name ("" for keys before the first header) -> key -> value,
/// plus the line of each table header.
struct Document {
  std::string path;
  std::map<std::string, std::map<std::string, Value>> tables;
  std::map<std::string, uint32_t> table_lines;
};

/// Parses `text` (the contents of `path`; `path` is used in error messages only).
/// Throws std::runtime_error "<path>:<line>: <what>" on any syntax error.
Document parse(const std::string& text, const std::string& path);

/// Reads and parses the file at `path`. Throws std::runtime_error when the file cannot
/// be read or does not parse.
Document parse_file(const std::string& path);

}  // namespace ascendc_sim::cost::toml
