// The general event loop (general_loop.hpp) with the critical path's hooks
// (critical_path.hpp): a unit of its own, so that the loop without them
// compiles as if it did not exist.
#include "general_loop.hpp"

namespace cloudnoise {

template RunResult Engine::simulate_loops<true>(const NoiseModel&, uint64_t, uint64_t);

}  // namespace cloudnoise
