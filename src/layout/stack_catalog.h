// The software stacks paratune knows (one list, stack_catalog.cc): a framework at a release,
// with the features it runs by default (layout/stack.h) and the layout switches it decides
// (attention kernel, fused cross-entropy, FSDP's FP32 shards, TP overlap, ...), each default
// with the recipe or source file it comes from (docs/stacks.md).
#pragma once

#include <string>
#include <vector>

#include "layout/layout.h"

namespace paratune {

// A stack as a user names it: "torchtitan", "megatron-bridge@26.04", "megatron-lm".
struct StackSpec {
  Framework framework = Framework::kMegatronLm;
  std::string release;  // empty: the framework's latest release paratune describes
  // torch.compile on the transformer blocks (torchtitan --compile; DeepSpeed's compile).
  bool compiled = false;
};

// Parses NAME[@RELEASE][+compile]. NAME is a framework name or an alias ("nemo",
// "megatron-core"); a release is checked against the framework's known releases. Throws
// InputError naming `where`.
StackSpec ParseStack(const std::string& text, const std::string& where);
std::string StackText(const StackSpec& s);

// Every name ParseStack accepts, for help texts.
std::string StackNamesList();

// Whether release `a` (YY.MM[.PP]; empty = before every release) comes before `b`.
bool ReleaseBefore(const std::string& a, const std::string& b);

// The releases of a framework paratune describes, oldest first (empty: unversioned).
std::vector<std::string> StackReleases(Framework f);

// Sets the stack's features and the switches it decides on `l`, for a model with or without
// experts. Appends one line per default it set to `notes` (with its source) when given.
void ApplyStack(const StackSpec& s, Layout& l, std::vector<std::string>* notes = nullptr);

}  // namespace paratune
