// The exchange loop (exchange_loop.hpp) for exchanges of one template,
// and the choice between the loops.
#include "exchange_loop.hpp"

namespace cloudnoise {

// Compiled in exchange_loop_templates.cpp.
extern template void Engine::exchange_events<true, false>();
extern template void Engine::exchange_events<false, false>();

void Engine::process_exchange() {
  if (exchange_packed_) {
    if (exchange_->uniform())
      exchange_events<true, true>();
    else
      exchange_events<true, false>();
  } else {
    if (exchange_->uniform())
      exchange_events<false, true>();
    else
      exchange_events<false, false>();
  }
}

template void Engine::exchange_events<true, true>();
template void Engine::exchange_events<false, true>();

}  // namespace cloudnoise
