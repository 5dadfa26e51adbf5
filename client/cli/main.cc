// `tether`: the command-line client. Everything is in tether_cli (cli/app.h).
#include <iostream>

#include "cli/app.h"

int main(int argc, char** argv) { return tether::cli::RunCli(argc, argv, std::cout, std::cerr); }
