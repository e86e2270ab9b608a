// nanobind glue: exposes the engine to Python as cloudnoise._engine.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "schedule.hpp"

namespace nb = nanobind;
using namespace cloudnoise;

void bind_schedules(nanobind::module_& m);

NB_MODULE(_engine, m) {
  m.doc() = "cloudnoise's C++ LogGOPS engine";
  nb::class_<Schedule>(m, "Schedule")
      .def_prop_ro("num_ranks", &Schedule::num_ranks)
      .def_prop_ro("num_ops", &Schedule::num_ops)
      .def_prop_ro("num_cpus", &Schedule::num_cpus)
      .def_prop_ro("num_nics", &Schedule::num_nics)
      .def_prop_ro("memory_bytes", &Schedule::memory_bytes);
  bind_schedules(m);
}
