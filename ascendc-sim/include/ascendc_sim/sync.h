// ascendc_sim/sync.h — pipes, hardware events, SetFlag/WaitFlag, PipeBarrier, TQueSync
// (api-reference §2.6).
//
// An AIV core has four pipes: S (scalar), V (vector), MTE2 (GM->UB) and MTE3 (UB->GM).
// Flags pair SetFlag<SRC_DST>(id) with WaitFlag<SRC_DST>(id); a WaitFlag with no
// SetFlag before it would hang the NPU ("flag_wait_deadlock"), a SetFlag never waited
// leaves residual state for the next kernel ("flag_unpaired", checked at kernel end).
// Only the AIV event pairs compile (static_assert), as on the real target.
#pragma once

#include <cstdint>
#include <source_location>

#include "ascendc_sim/core.h"

/// Hardware pipes (CCE builtin enum; global namespace as on the NPU toolchain).
enum pipe_t : uint8_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};

/// Event ids of SetFlag/WaitFlag (CCE builtin enum; global namespace as on the NPU
/// toolchain). 910B has 8 ids per pipe pair; 6 and 7 are reserved for the framework
/// (api-reference §2.6). Unscoped, so `SetFlag<HardEvent::MTE2_V>(EVENT_ID0)` and
/// `static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3))` compile as in real kernels.
enum event_t : uint8_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};

namespace AscendC {

enum class HardEvent : uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MAX
};

}  // namespace AscendC

namespace ascendc_sim {

/// Source and destination pipe of an AIV event; `ok` false for events an AIV core lacks.
struct EventPipes {
  Pipe src, dst;
  bool ok;
};
constexpr EventPipes event_pipes(AscendC::HardEvent e) {
  using H = AscendC::HardEvent;
  switch (e) {
    case H::S_V: return {Pipe::S, Pipe::V, true};
    case H::S_MTE2: return {Pipe::S, Pipe::MTE2, true};
    case H::S_MTE3: return {Pipe::S, Pipe::MTE3, true};
    case H::V_S: return {Pipe::V, Pipe::S, true};
    case H::V_MTE2: return {Pipe::V, Pipe::MTE2, true};
    case H::V_MTE3: return {Pipe::V, Pipe::MTE3, true};
    case H::MTE2_S: return {Pipe::MTE2, Pipe::S, true};
    case H::MTE2_V: return {Pipe::MTE2, Pipe::V, true};
    case H::MTE2_MTE3: return {Pipe::MTE2, Pipe::MTE3, true};
    case H::MTE3_S: return {Pipe::MTE3, Pipe::S, true};
    case H::MTE3_V: return {Pipe::MTE3, Pipe::V, true};
    case H::MTE3_MTE2: return {Pipe::MTE3, Pipe::MTE2, true};
    default: return {Pipe::S, Pipe::S, false};
  }
}
constexpr bool aiv_pipe(pipe_t p) { return p == PIPE_S || p == PIPE_V || p == PIPE_MTE2 || p == PIPE_MTE3 || p == PIPE_ALL; }
constexpr Pipe to_pipe(pipe_t p) {
  return p == PIPE_V ? Pipe::V : p == PIPE_MTE2 ? Pipe::MTE2 : p == PIPE_MTE3 ? Pipe::MTE3 : Pipe::S;
}

void set_flag(Pipe src, Pipe dst, int32_t event_id, const char* api, const SrcLoc& loc);
void wait_flag(Pipe src, Pipe dst, int32_t event_id, const char* api, const SrcLoc& loc);
void pipe_barrier(Pipe pipe, bool all, const SrcLoc& loc);

}  // namespace ascendc_sim

namespace AscendC {

template <HardEvent event>
inline void SetFlag(int32_t eventID, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  constexpr auto ep = ascendc_sim::event_pipes(event);
  static_assert(ep.ok, "SetFlag: this HardEvent does not exist on an AIV core (legal: S_V S_MTE2 S_MTE3 V_S V_MTE2 "
                       "V_MTE3 MTE2_S MTE2_V MTE2_MTE3 MTE3_S MTE3_V MTE3_MTE2)");
  ascendc_sim::set_flag(ep.src, ep.dst, eventID, "SetFlag", loc);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  constexpr auto ep = ascendc_sim::event_pipes(event);
  static_assert(ep.ok, "WaitFlag: this HardEvent does not exist on an AIV core (legal: S_V S_MTE2 S_MTE3 V_S V_MTE2 "
                       "V_MTE3 MTE2_S MTE2_V MTE2_MTE3 MTE3_S MTE3_V MTE3_MTE2)");
  ascendc_sim::wait_flag(ep.src, ep.dst, eventID, "WaitFlag", loc);
}

/// Later instructions on `pipe` start after the earlier ones on `pipe` complete;
/// PIPE_ALL waits for every pipe.
template <pipe_t pipe>
inline void PipeBarrier(ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
  static_assert(pipe != PIPE_S, "PipeBarrier<PIPE_S> is not supported (api-reference §2.6)");
  static_assert(ascendc_sim::aiv_pipe(pipe), "PipeBarrier: this pipe does not exist on an AIV core");
  ascendc_sim::pipe_barrier(ascendc_sim::to_pipe(pipe), pipe == PIPE_ALL, loc);
}

template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  void SetFlag(int32_t id, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    static_assert(ascendc_sim::aiv_pipe(src) && ascendc_sim::aiv_pipe(dst) && src != PIPE_ALL && dst != PIPE_ALL,
                  "TQueSync: pipes must be S, V, MTE2 or MTE3");
    ascendc_sim::set_flag(ascendc_sim::to_pipe(src), ascendc_sim::to_pipe(dst), id, "TQueSync::SetFlag", loc);
  }
  void WaitFlag(int32_t id, ascendc_sim::SrcLoc loc = ascendc_sim::SrcLoc::current()) {
    ascendc_sim::wait_flag(ascendc_sim::to_pipe(src), ascendc_sim::to_pipe(dst), id, "TQueSync::WaitFlag", loc);
  }
};

}  // namespace AscendC
