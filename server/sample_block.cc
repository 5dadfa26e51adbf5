#include "sample_block.h"

#include <algorithm>
#include <iterator>

namespace tether::server {

void SampleBlock::Append(const simulate::Sample& sample) {
  if (t.empty()) first_index = sample.index;
  t.push_back(sample.t);
  values.insert(values.end(), sample.values.begin(), sample.values.end());
  residual_position.push_back(sample.residual_position);
  residual_velocity.push_back(sample.residual_velocity);
  if (inequalities) residual_inequality.push_back(sample.residual_inequality);
  for (const simulate::SwitchEvent& event : sample.events) {
    switches.push_back(event);
    switch_index.push_back(sample.index);
  }
  for (const simulate::Warning& warning : sample.warnings) {
    warnings.push_back(warning);
    warning_index.push_back(sample.index);
  }
  for (const simulate::RunNotice& notice : sample.notices) {
    notices.push_back(notice);
    notice_index.push_back(sample.index);
  }
}

simulate::Sample SampleBlock::Row(std::size_t row, std::size_t columns) const {
  simulate::Sample s;
  s.index = first_index + row;
  s.t = t[row];
  s.values = std::span<const double>(values).subspan(row * columns, columns);
  s.residual_position = residual_position[row];
  s.residual_velocity = residual_velocity[row];
  if (inequalities) s.residual_inequality = residual_inequality[row];
  // switch_index is sorted (samples are appended in order): this row's switches are one run.
  const auto [begin, end] = std::equal_range(switch_index.begin(), switch_index.end(), s.index);
  s.events = std::span<const simulate::SwitchEvent>(switches).subspan(
      static_cast<std::size_t>(std::distance(switch_index.begin(), begin)),
      static_cast<std::size_t>(std::distance(begin, end)));
  const auto [warned, warned_end] =
      std::equal_range(warning_index.begin(), warning_index.end(), s.index);
  s.warnings = std::span<const simulate::Warning>(warnings).subspan(
      static_cast<std::size_t>(std::distance(warning_index.begin(), warned)),
      static_cast<std::size_t>(std::distance(warned, warned_end)));
  const auto [first, last] = std::equal_range(notice_index.begin(), notice_index.end(), s.index);
  s.notices = std::span<const simulate::RunNotice>(notices).subspan(
      static_cast<std::size_t>(std::distance(notice_index.begin(), first)),
      static_cast<std::size_t>(std::distance(first, last)));
  return s;
}

std::size_t SampleBlock::bytes() const {
  return sizeof(double) * (t.size() + values.size() + residual_position.size() +
                           residual_velocity.size() + residual_inequality.size()) +
         sizeof(simulate::SwitchEvent) * switches.size() + sizeof(std::uint64_t) * switch_index.size() +
         (sizeof(simulate::Warning) + sizeof(std::uint64_t)) * warnings.size() +
         NoticeBytes() + SessionEventBytes();
}

std::size_t SampleBlock::SessionEventBytes() const {
  std::size_t bytes = 0;
  for (const v1::Event& event : session_events) bytes += event.SpaceUsedLong();
  return bytes;
}

std::size_t SampleBlock::NoticeBytes() const {
  std::size_t bytes = sizeof(std::uint64_t) * notice_index.size();
  for (const simulate::RunNotice& notice : notices) {
    bytes += sizeof(simulate::RunNotice) + notice.message.size();
  }
  return bytes;
}

}  // namespace tether::server
