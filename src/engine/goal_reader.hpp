// Reads the GOAL text format of LogGOPSim and Schedgen into a Schedule.
//
//   num_ranks N
//   rank R {
//     l1: send 8b to 1 tag 0 [cpu C] [nic N]
//     l2: recv 8b from -1 tag -1          (-1: any source / any tag)
//     l3: calc 500 [cpu C]                (nanoseconds)
//     l3 requires l2                      (l3 starts after l2 finished)
//     l1 irequires l3                     (l1 starts after l3 started)
//   }
//
// `//` and `/* */` comments are allowed anywhere. Labels are local to a rank
// and may be referenced before they are defined. Malformed input raises
// GoalError whose message is `NAME:LINE: what is wrong`.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "schedule.hpp"

namespace cloudnoise {

class GoalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses GOAL text; `name` prefixes error messages.
Schedule read_goal_text(std::string_view text, const std::string& name);

// Reads a GOAL file; gzip input (recognised by its magic bytes) is inflated.
Schedule read_goal_file(const std::string& path);

// Whether this build reads gzip itself (otherwise callers inflate first).
bool goal_reader_has_gzip();

}  // namespace cloudnoise
