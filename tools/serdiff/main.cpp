// Entry point of the serdiff command-line tool: dispatches on the subcommand name in argv[1].
#include <cstdio>
#include <cstring>

#include "tools/serdiff/commands.h"

namespace {

void print_usage(std::FILE* out)
{
    std::fputs(
        "usage: serdiff COMMAND [ARGS...]\n"
        "\n"
        "commands:\n"
        "  inspect TYPE [--impl optimized|reference|both|all] [--int KIND] [--no-range-check]\n"
        "          [--hex HEX | FILE | -]\n"
        "      Decode one object with the optimized and/or reference implementation and print\n"
        "      one JSON object (ok, error, consumed, reencoded_hex, size, value); `all` adds every\n"
        "      linked peer implementation (tx, tx-nowitness, block) and the allow-list entries.\n"
        "      TYPE: compactsize varint tx tx-nowitness header block locator blockundo\n"
        "  blockfile write|scan|import ...\n"
        "      Write, scan or import Bitcoin Core block files (blk*.dat / rev*.dat).\n"
        "  help\n"
        "      Print this text. `serdiff COMMAND --help` prints the command's own usage.\n",
        out);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0 ||
        std::strcmp(argv[1], "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    // Each subcommand sees its own name as argv[0], like a program of its own.
    if (std::strcmp(argv[1], "inspect") == 0) return serdiff::cli::run_inspect(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "blockfile") == 0) return serdiff::cli::run_blockfile(argc - 1, argv + 1);
    std::fprintf(stderr, "serdiff: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return 2;
}
