#include "cli/sweep_output.h"

namespace tether::cli {

SweepOutput::SweepOutput(SweepFormat format, std::ostream& out, SweepColumns columns,
                         const ExistingSweepOutput* existing)
    : writer_(MakeSweepWriter(format, out)),
      columns_(std::move(columns)),
      needs_values_(format == SweepFormat::kCsv) {
  if (existing == nullptr) return;
  for (const auto& [run, row] : existing->rows) pending_.emplace(run, row.text);
  if (!existing->header.empty()) {
    existing_header_ = existing->header;
    columns_.values = existing->values;
    needs_values_ = false;
  }
}

void SweepOutput::Redo(std::size_t run) {
  const auto line = pending_.find(run);
  if (line == pending_.end()) return;
  if (const auto* text = std::get_if<std::string>(&line->second)) held_[run] = *text;
  pending_.erase(line);
}

void SweepOutput::Add(SweepRow row) {
  if (needs_values_ && !row.value_names.empty()) {
    columns_.values = row.value_names;
    needs_values_ = false;
  }
  const std::size_t run = row.run;
  held_.erase(run);
  pending_.insert_or_assign(run, std::move(row));
  Drain(false);
}

void SweepOutput::Skip(std::size_t run) {
  Keep(run);
  pending_.emplace(run, std::monostate{});
  Drain(false);
}

void SweepOutput::Finish() {
  while (!held_.empty()) Keep(held_.begin()->first);
  Drain(true);
}

void SweepOutput::Keep(std::size_t run) {
  const auto line = held_.find(run);
  if (line == held_.end()) return;
  pending_.insert_or_assign(run, std::move(line->second));
  held_.erase(line);
}

void SweepOutput::Drain(bool finishing) {
  if (!header_written_) {
    // Without a row there is nothing to describe yet: an interrupted sweep that finished nothing
    // leaves an empty output, which --resume treats as a fresh start.
    if ((needs_values_ && !finishing) || pending_.empty()) return;
    writer_->Header(columns_, existing_header_);
    header_written_ = true;
  }
  for (auto it = pending_.begin(); it != pending_.end() && (finishing || it->first == next_);) {
    if (const auto* row = std::get_if<SweepRow>(&it->second)) {
      writer_->Row(*row);
    } else if (const auto* line = std::get_if<std::string>(&it->second)) {
      writer_->Raw(*line);
    }
    next_ = it->first + 1;
    it = pending_.erase(it);
  }
}

}  // namespace tether::cli
