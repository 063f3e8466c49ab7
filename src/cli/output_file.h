// The files a command writes where its flags say (report --out, analyze --trace-out, simulate
// --trace-out, plan --emit-out, cluster --series/--trace-out/--jobs-out, calibrate --out, runs export
// --out): "-" is standard output, and the command's own printout then goes to standard error;
// any other path is written by WriteFileAtomic (regular files replaced atomically, devices and
// FIFOs written through). docs/files.md.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;  // CLI/App.hpp
}  // namespace CLI

namespace paratune::cli {

struct OutputFlag {
  const char* flag;         // "--out"
  const std::string* path;  // "" when the flag was not given
};

// Before any work: refuses an output flag given an empty path, two outputs that are both "-",
// and an output naming one of `inputs` (the same file by device and inode, or a .json directly
// inside an input directory); then, when one output is "-", keeps standard output for it alone.
// Throws InputError naming the flag.
void PrepareOutputs(const CLI::App& cmd, const std::vector<OutputFlag>& outputs,
                    const std::vector<std::string>& inputs);

// Writes `content` to `path` ("-": standard output, kept by PrepareOutputs); throws InputError
// naming the file (or "standard output") when a write fails.
void WriteOutput(const std::string& path, const std::string& content);

// Flushes what the command printed; throws InputError("standard output: cannot write: ...")
// when it could not be written (a full disk, a closed pipe).
void FlushStandardOutput();

}  // namespace paratune::cli
