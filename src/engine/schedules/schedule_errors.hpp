// For the schedule bindings: a generator's or assembler's ScheduleError
// reaches Python as ValueError with the engine's message, so the command
// line can print it as one line.
#pragma once

#include <nanobind/nanobind.h>

#include "schedule.hpp"

namespace cloudnoise::bindings {

// Runs f, turning ScheduleError into ValueError.
template <class F>
auto checked(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ScheduleError& err) {
    throw nanobind::value_error(err.what());
  }
}

}  // namespace cloudnoise::bindings
