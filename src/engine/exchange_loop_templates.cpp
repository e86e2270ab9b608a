// The exchange loop (exchange_loop.hpp) for exchanges of several templates:
// public Schedgen's chain, the trees, the linear patterns.
#include "exchange_loop.hpp"

namespace cloudnoise {

template void Engine::exchange_events<true, false, false>();
template void Engine::exchange_events<false, false, false>();

}  // namespace cloudnoise
