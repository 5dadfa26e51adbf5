#include "stream_decoder.h"

#include <algorithm>
#include <string>
#include <utility>

namespace tether::client {

bool StreamDecoder::Consume(const v1::StateChunk& chunk) {
  switch (chunk.chunk_case()) {
    case v1::StateChunk::kHeader: {
      const v1::StreamHeader& header = chunk.header();
      columns_ = {};
      for (const v1::Column& column : header.columns()) {
        columns_.names.push_back(column.name());
        columns_.units.push_back(column.unit());
      }
      have_header_ = true;
      end_.session = header.session();
      end_.next_sample_index = header.first_sample_index();
      if (handlers_.on_header) handlers_.on_header(header, columns_);
      return true;
    }
    case v1::StateChunk::kFrame:
      return ConsumeFrame(chunk.frame());
    case v1::StateChunk::kSummary:
      end_.summary = chunk.summary();
      return true;
    case v1::StateChunk::CHUNK_NOT_SET:
      break;
  }
  return true;  // an empty chunk carries nothing; a newer server's chunk kind is skipped
}

bool StreamDecoder::Fail(std::string message) {
  protocol_error_.code = grpc::StatusCode::INTERNAL;
  protocol_error_.message = std::move(message);
  return false;
}

bool StreamDecoder::ConsumeFrame(const v1::Frame& frame) {
  if (!have_header_) return Fail("malformed stream: a frame arrived before the header");
  if (!CheckLayout(frame) || !CollectSwitches(frame)) return false;
  for (const v1::Event& event : frame.events()) {
    if (handlers_.on_event) handlers_.on_event(event);
  }
  if (!DeliverSamples(frame)) return false;
  if (frame.has_progress() && handlers_.on_progress) handlers_.on_progress(frame.progress());
  if (handlers_.on_frame) handlers_.on_frame();
  return true;
}

bool StreamDecoder::CheckLayout(const v1::Frame& frame) {
  const auto n = static_cast<std::size_t>(frame.t_size());
  const std::size_t c = columns_.names.size();
  const auto values = static_cast<std::size_t>(frame.values_size());
  const std::string at = "malformed frame at sample " + std::to_string(frame.first_sample_index());
  if (values != n * c || static_cast<std::size_t>(frame.residual_position_size()) != n ||
      static_cast<std::size_t>(frame.residual_velocity_size()) != n) {
    return Fail(at + ": " + std::to_string(n) + " times, " + std::to_string(values) +
                " values (expected " + std::to_string(n * c) + "), " +
                std::to_string(frame.residual_position_size()) + " and " +
                std::to_string(frame.residual_velocity_size()) + " residuals");
  }
  const auto inequality = static_cast<std::size_t>(frame.residual_inequality_size());
  if (inequality != n && inequality != 0) {
    return Fail(at + ": " + std::to_string(n) + " times, " + std::to_string(inequality) +
                " residual_inequality entries (expected " + std::to_string(n) +
                ", or 0 without inequalities)");
  }
  // A viewer that fell behind its session's history skips ahead, announced by an event.
  const bool announced_gap =
      frame.first_sample_index() > end_.next_sample_index &&
      std::any_of(frame.events().begin(), frame.events().end(), [&](const v1::Event& e) {
        return e.kind() == v1::EVENT_KIND_SAMPLES_LOST && e.sample_index() == frame.first_sample_index();
      });
  if (frame.first_sample_index() != end_.next_sample_index && !announced_gap) {
    return Fail("malformed stream: frame starts at sample " +
                std::to_string(frame.first_sample_index()) + ", expected " +
                std::to_string(end_.next_sample_index));
  }
  return true;
}

bool StreamDecoder::CollectSwitches(const v1::Frame& frame) {
  indexed_switches_.clear();
  const std::uint64_t first = frame.first_sample_index();
  const std::uint64_t last = first + static_cast<std::uint64_t>(frame.t_size());  // one past
  for (const v1::Event& event : frame.events()) {
    const bool activated = event.kind() == v1::EVENT_KIND_ACTIVATED;
    if (!activated && event.kind() != v1::EVENT_KIND_DEACTIVATED) continue;
    const std::string what = "malformed frame at sample " + std::to_string(first) + ": " +
                             v1::EventKind_Name(event.kind()) + " event at sample " +
                             std::to_string(event.sample_index());
    if (!event.has_constraint()) return Fail(what + " has no constraint index");
    if (event.sample_index() < first || event.sample_index() >= last) {
      return Fail(what + " lies outside the frame's samples [" + std::to_string(first) + ", " +
                  std::to_string(last) + ")");
    }
    Switch s;
    s.direction = activated ? Switch::Direction::kActivated : Switch::Direction::kDeactivated;
    s.t = event.t();
    s.constraint = event.constraint();
    indexed_switches_.emplace_back(event.sample_index(), s);
  }
  // Stable: switches at one sample keep the order the server sent them in.
  std::stable_sort(indexed_switches_.begin(), indexed_switches_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return true;
}

bool StreamDecoder::DeliverSamples(const v1::Frame& frame) {
  const auto n = static_cast<std::size_t>(frame.t_size());
  const std::size_t c = columns_.names.size();
  const bool has_inequality = frame.residual_inequality_size() > 0;
  const double* data = frame.values().data();
  auto next_switch = indexed_switches_.begin();
  for (std::size_t i = 0; i < n; ++i) {
    if (handlers_.stop != nullptr && handlers_.stop->load()) {
      end_.cancelled_by_handler = true;
      return false;
    }
    const int row = static_cast<int>(i);
    Sample sample;
    sample.index = frame.first_sample_index() + i;
    sample.t = frame.t(row);
    sample.values = std::span<const double>(data + i * c, c);
    sample.residual_position = frame.residual_position(row);
    sample.residual_velocity = frame.residual_velocity(row);
    if (has_inequality) sample.residual_inequality = frame.residual_inequality(row);
    sample_switches_.clear();
    for (; next_switch != indexed_switches_.end() && next_switch->first == sample.index; ++next_switch) {
      sample_switches_.push_back(next_switch->second);
    }
    sample.switches = sample_switches_;
    sample.columns = &columns_;
    ++end_.samples;
    end_.next_sample_index = sample.index + 1;
    if (handlers_.on_sample && !handlers_.on_sample(sample)) {
      end_.cancelled_by_handler = true;
      return false;
    }
  }
  return true;
}

StreamEnd StreamDecoder::Finish(const grpc::Status& status) {
  StreamEnd end = std::move(end_);
  // The stop flag cancelled the call while no frame came (Client::Stream's watcher).
  if (handlers_.stop != nullptr && handlers_.stop->load() &&
      status.error_code() == grpc::StatusCode::CANCELLED) {
    end.cancelled_by_handler = true;
  }
  if (!protocol_error_.ok()) {
    end.error = protocol_error_;
  } else if (end.cancelled_by_handler && status.error_code() == grpc::StatusCode::CANCELLED) {
    end.error = {};  // the cancellation we asked for is not an error
  } else {
    end.error = Error::FromStatus(status);
  }
  return end;
}

}  // namespace tether::client
