// Renders plans for people (table) and programs (JSON, YAML).
//
// JSON shape (a contract; fields may be added, never renamed):
//   {"policy": {...}, "summary": {"gpus_before", "gpus_after", "gpus_freed", "nodes_freed",
//    "monthly_savings_usd", ...}, "workloads": [...], "nodes": [...], "artifacts": {...},
//    "warnings": [...]}
// YAML is the same document.  Several plans (one per policy) render as
// {"plans": [...]}.  Output is deterministic.  RenderJson streams the text
// (model/json_writer.h; the schedule through plan::WriteSchedule) without
// building PlanToJson's tree; its bytes equal
// PlanToJson(p).dump(2) + "\n" (report_test checks it), so the two must change
// together.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"

namespace kubeon::cli {

nlohmann::json PlanToJson(const plan::Plan& plan);
std::string RenderJson(const std::vector<plan::Plan>& plans);
// The same text handed to `sink` in consecutive pieces of about
// kRenderChunkBytes (never empty), so that a large plan (60 MB at 80,000
// GPUs) is written as it is rendered, not held whole in memory.
inline constexpr size_t kRenderChunkBytes = size_t{1} << 20;
void RenderJson(const std::vector<plan::Plan>& plans, const std::function<void(std::string_view)>& sink);
std::string RenderYaml(const std::vector<plan::Plan>& plans);
std::string RenderTable(const std::vector<plan::Plan>& plans);

// JSON value -> block YAML (strings quoted when YAML would read them as
// something else; multi-line strings as literal blocks).
std::string JsonToYaml(const nlohmann::json& j);

// "$1,234.50": dollars with thousands separators and cents; any double is
// safe (1e308 prints all its digits, nan and inf print "n/a").
std::string Money(double usd);

// A column table for people: each column as wide as its widest cell (UTF-8
// characters counted once) plus two spaces; the last column is not padded.
std::string Table(const std::vector<std::vector<std::string>>& rows);

}  // namespace kubeon::cli
