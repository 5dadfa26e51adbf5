// Lists the models of a tether server and streams one second of the pendulum:
//   list_models HOST:PORT
// Exit code 0 on success, 3 if the server is unreachable, 1 on any other error.
#include <iostream>

#include "tether/client/client.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: list_models HOST:PORT\n";
    return 2;
  }
  tether::client::ClientOptions options;
  options.max_attempts = 2;  // an example should give up quickly
  tether::client::Client client(argv[1], options);

  auto models = client.ListAllModels();
  if (!models.ok()) {
    std::cerr << models.error().ToString() << '\n';
    return models.error().code == grpc::StatusCode::UNAVAILABLE ? 3 : 1;
  }
  for (const auto& model : *models) std::cout << model.name() << "  " << model.title() << '\n';

  tether::v1::SimulateRequest request;
  request.set_model("pendulum");
  request.mutable_options()->set_t_end(1.0);
  const tether::client::StreamEnd end = client.Simulate(request, {
      .on_sample = [](const tether::client::Sample& sample) {
        std::cout << "t = " << sample.t << "  x = " << sample.Value("x")
                  << "  lambda_1 = " << sample.Value("lambda_1") << '\n';
        return true;
      }});
  if (!end.ok()) {
    std::cerr << end.error.ToString() << '\n';
    return 1;
  }
  return 0;
}
