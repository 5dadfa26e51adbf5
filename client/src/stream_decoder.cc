#include "stream_decoder.h"

#include <string>

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

bool StreamDecoder::ConsumeFrame(const v1::Frame& frame) {
  auto fail = [this](const std::string& message) {
    protocol_error_.code = grpc::StatusCode::INTERNAL;
    protocol_error_.message = message;
    return false;
  };
  if (!have_header_) return fail("malformed stream: a frame arrived before the header");
  const auto n = static_cast<std::size_t>(frame.t_size());
  const std::size_t c = columns_.names.size();
  const auto values = static_cast<std::size_t>(frame.values_size());
  if (values != n * c || static_cast<std::size_t>(frame.residual_position_size()) != n ||
      static_cast<std::size_t>(frame.residual_velocity_size()) != n) {
    return fail("malformed frame at sample " + std::to_string(frame.first_sample_index()) + ": " +
                std::to_string(n) + " times, " + std::to_string(values) + " values (expected " +
                std::to_string(n * c) + "), " + std::to_string(frame.residual_position_size()) +
                " and " + std::to_string(frame.residual_velocity_size()) + " residuals");
  }
  if (frame.first_sample_index() != end_.next_sample_index) {
    return fail("malformed stream: frame starts at sample " +
                std::to_string(frame.first_sample_index()) + ", expected " +
                std::to_string(end_.next_sample_index));
  }
  for (const v1::Event& event : frame.events()) {
    if (handlers_.on_event) handlers_.on_event(event);
  }
  const double* data = frame.values().data();
  for (std::size_t i = 0; i < n; ++i) {
    Sample sample;
    sample.index = frame.first_sample_index() + i;
    sample.t = frame.t(static_cast<int>(i));
    sample.values = std::span<const double>(data + i * c, c);
    sample.residual_position = frame.residual_position(static_cast<int>(i));
    sample.residual_velocity = frame.residual_velocity(static_cast<int>(i));
    sample.columns = &columns_;
    ++end_.samples;
    end_.next_sample_index = sample.index + 1;
    if (handlers_.on_sample && !handlers_.on_sample(sample)) {
      end_.cancelled_by_handler = true;
      return false;
    }
  }
  if (frame.has_progress() && handlers_.on_progress) handlers_.on_progress(frame.progress());
  return true;
}

StreamEnd StreamDecoder::Finish(const grpc::Status& status) {
  StreamEnd end = std::move(end_);
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
