// The serdiff CLI's subcommands; main.cpp dispatches on argv[1]. Each returns the process exit status.
#pragma once

namespace serdiff::cli {

// serdiff inspect TYPE [--impl optimized|reference|both|all] [--hex HEX | FILE | -]
int run_inspect(int argc, char** argv);
// serdiff blockfile write|scan|import ...
int run_blockfile(int argc, char** argv);

}  // namespace serdiff::cli
