// Boost.Beast over Boost.Asio: one io_context run by `threads` threads, one chain of
// asynchronous operations per stream (read the request, write the header, then write one
// chunk per event, the next only when the previous completed: asio's back-pressure).
#include <unistd.h>

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility> (C++20).
#include <utility>
// Keep <utility> first: the comment above.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http_sse/sse_server.h"

namespace tether::bench {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

class Stream : public std::enable_shared_from_this<Stream> {
 public:
  Stream(tcp::socket socket, const std::string& frame)
      : socket_(std::move(socket)), frame_(frame) {}

  void Start() {
    http::async_read(socket_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) {
                       if (!error) self->WriteHeader();
                     });
  }

 private:
  void WriteHeader() {
    response_.version(11);
    response_.result(http::status::ok);
    response_.set(http::field::content_type, "text/event-stream");
    response_.set(http::field::cache_control, "no-cache");
    response_.chunked(true);
    serializer_.emplace(response_);
    http::async_write_header(socket_, *serializer_,
                             [self = shared_from_this()](beast::error_code error, std::size_t) {
                               if (!error) self->WriteEvent();
                             });
  }

  void WriteEvent() {
    event_ = SseEvent(next_id_++, frame_);
    net::async_write(socket_, http::make_chunk(net::buffer(event_)),
                     [self = shared_from_this()](beast::error_code error, std::size_t) {
                       if (!error) self->WriteEvent();
                     });
  }

  tcp::socket socket_;
  const std::string& frame_;
  beast::flat_buffer buffer_;
  http::request<http::empty_body> request_;
  http::response<http::empty_body> response_;
  std::optional<http::response_serializer<http::empty_body>> serializer_;
  std::string event_;
  std::uint64_t next_id_ = 0;
};

void Accept(net::io_context& context, tcp::acceptor& acceptor, const std::string& frame) {
  acceptor.async_accept(net::make_strand(context),
                        [&context, &acceptor, &frame](beast::error_code error, tcp::socket socket) {
                          if (!error) std::make_shared<Stream>(std::move(socket), frame)->Start();
                          Accept(context, acceptor, frame);
                        });
}

}  // namespace

bool ServeBeast(const ServerSetup& setup, std::string* why) {
  net::io_context context(setup.threads);
  tcp::acceptor acceptor(context);
  beast::error_code error;
  const tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), 0);
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(net::socket_base::max_listen_connections, error);
  if (error) {
    *why = "Boost.Beast: cannot listen on 127.0.0.1: " + error.message();
    return false;
  }
  const int port = acceptor.local_endpoint().port();
  if (write(setup.report_fd, &port, sizeof port) != sizeof port) {
    *why = "Boost.Beast: cannot report the port";
    return false;
  }
  Accept(context, acceptor, setup.frame);
  std::vector<std::thread> threads;
  for (int i = 1; i < setup.threads; ++i) threads.emplace_back([&context] { context.run(); });
  context.run();
  for (std::thread& thread : threads) thread.join();
  *why = "Boost.Beast: the event loop stopped";
  return false;
}

}  // namespace tether::bench
