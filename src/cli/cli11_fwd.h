// Forward declarations of the CLI11 classes that the commands' headers name
// (CLI::App in the Add*Command functions, CLI::Validator).  CLI11 2.1 is
// header-only and costs ~7 s of compile time in every file that includes
// <CLI/CLI.hpp>; the headers declare with these, and only the files that
// build or parse command lines (the commands' .cc files, main.cc, their
// tests) include CLI11 itself.
#pragma once

namespace CLI {
class App;
class Validator;
}  // namespace CLI
