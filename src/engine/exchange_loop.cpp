// The exchange loop (exchange_loop.hpp) for exchanges of one template,
// and the choice between the loops.
#include "exchange_loop.hpp"

namespace cloudnoise {

// Compiled in exchange_loop_templates.cpp and exchange_loop_recorded.cpp.
extern template void Engine::exchange_events<true, false, false>();
extern template void Engine::exchange_events<false, false, false>();
extern template void Engine::exchange_events<true, true, true>();
extern template void Engine::exchange_events<true, false, true>();
extern template void Engine::exchange_events<false, true, true>();
extern template void Engine::exchange_events<false, false, true>();

template <bool kRecord>
void Engine::process_exchange() {
  if (exchange_packed_) {
    if (exchange_->uniform())
      exchange_events<true, true, kRecord>();
    else
      exchange_events<true, false, kRecord>();
  } else {
    if (exchange_->uniform())
      exchange_events<false, true, kRecord>();
    else
      exchange_events<false, false, kRecord>();
  }
}

template void Engine::process_exchange<false>();
template void Engine::process_exchange<true>();
template void Engine::exchange_events<true, true, false>();
template void Engine::exchange_events<false, true, false>();

}  // namespace cloudnoise
