// The exchange loop (exchange_loop.hpp) with the critical path's hooks
// (critical_path.hpp), for every kind of exchange: a unit of its own, so
// that the loops without them compile as if it did not exist.
#include "exchange_loop.hpp"

namespace cloudnoise {

template void Engine::exchange_events<true, true, true>();
template void Engine::exchange_events<true, false, true>();
template void Engine::exchange_events<false, true, true>();
template void Engine::exchange_events<false, false, true>();

}  // namespace cloudnoise
