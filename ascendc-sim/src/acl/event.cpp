// src/acl/event.cpp — events stamped with a stream's modelled clock.
//
// aclrtRecordEvent queues a record task; when the stream's worker reaches it, the event
// takes the stream's modelled time (the sum of the LaunchReport::total_us of the kernels
// that ran before it on that stream) and completes. Elapsed times are differences of
// those stamps, so they are deterministic and equal the cost model's kernel times.
#include <string>

#include "runtime.h"

namespace ascendc_sim::acl {
namespace {

std::shared_ptr<Event> find_event(aclrtEvent handle, const char* api, aclError* code) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto it = rt.events.find(handle);
  if (it != rt.events.end()) return it->second;
  *code = fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + hex(handle) +
                                            " is not a live event (never created, or destroyed)");
  return nullptr;
}

}  // namespace
}  // namespace ascendc_sim::acl

using namespace ascendc_sim::acl;

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  if (!event) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is null");
  if (!current_context("aclrtCreateEvent")) return ACL_ERROR_RT_CONTEXT_NULL;
  auto e = std::make_shared<Event>();
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  rt.events.emplace(e.get(), e);
  *event = e.get();
  return ACL_SUCCESS;
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  const uint32_t known = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_IPC;
  if (flag & ~known)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEventExWithFlag: flag " + std::to_string(flag) +
                                             " has bits outside ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | "
                                             "ACL_EVENT_TIME_LINE | ACL_EVENT_IPC");
  return aclrtCreateEvent(event);
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) { return aclrtCreateEventExWithFlag(event, flag); }

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  aclError code = ACL_SUCCESS;
  auto e = find_event(event, "aclrtStreamWaitEvent", &code);
  if (!e) return code;
  auto s = resolve_stream(stream, "aclrtStreamWaitEvent", &code);
  if (!s) return code;
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(e->mu);
    target = e->queued;
  }
  if (target == 0) return ACL_SUCCESS;
  return s->enqueue(Task{Task::Kind::Record, [e, target](Stream& st) {
                           double stamp;
                           {
                             std::unique_lock<std::mutex> lock(e->mu);
                             e->cv.wait(lock, [&] { return e->completed >= target; });
                             stamp = e->stamp_us;
                           }
                           st.advance_clock_to(stamp);
                         }});
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  // A record still queued holds its own reference, so it can run after this.
  if (rt.events.erase(event) == 0)
    return fail(ACL_ERROR_INVALID_PARAM,
                "aclrtDestroyEvent: " + hex(event) + " is not a live event");
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  aclError code = ACL_SUCCESS;
  auto e = find_event(event, "aclrtRecordEvent", &code);
  if (!e) return code;
  auto s = resolve_stream(stream, "aclrtRecordEvent", &code);
  if (!s) return code;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(e->mu);
    generation = ++e->queued;
  }
  aclError r = s->enqueue(Task{Task::Kind::Record, [e, generation](Stream& st) {
                                 double clock;
                                 aclError err;
                                 st.clock_and_error(&clock, &err);
                                 std::lock_guard<std::mutex> lock(e->mu);
                                 if (generation > e->completed) {
                                   e->completed = generation;
                                   e->stamp_us = clock;
                                   e->status = err;
                                   e->stream = &st;
                                 }
                                 e->cv.notify_all();
                               }});
  if (r != ACL_SUCCESS) {
    std::lock_guard<std::mutex> lock(e->mu);
    if (e->queued == generation) --e->queued;
  }
  return r;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  aclError code = ACL_SUCCESS;
  auto e = find_event(event, "aclrtSynchronizeEvent", &code);
  if (!e) return code;
  std::unique_lock<std::mutex> lock(e->mu);
  const uint64_t target = e->queued;
  e->cv.wait(lock, [&] { return e->completed >= target; });
  if (e->status != ACL_SUCCESS)
    return fail(e->status, "aclrtSynchronizeEvent: the event was recorded on a stream whose "
                           "kernel launch failed; synchronize the stream for the diagnostics");
  return ACL_SUCCESS;
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEvent: status is null");
  aclError code = ACL_SUCCESS;
  auto e = find_event(event, "aclrtQueryEvent", &code);
  if (!e) return code;
  std::lock_guard<std::mutex> lock(e->mu);
  *status = e->completed >= e->queued ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent start, aclrtEvent end) {
  if (!ms) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is null");
  aclError code = ACL_SUCCESS;
  auto a = find_event(start, "aclrtEventElapsedTime (start)", &code);
  if (!a) return code;
  auto b = find_event(end, "aclrtEventElapsedTime (end)", &code);
  if (!b) return code;
  double t[2];
  const Stream* on[2] = {nullptr, nullptr};
  const char* names[2] = {"start", "end"};
  Event* ev[2] = {a.get(), b.get()};
  for (int i = 0; i < 2; ++i) {
    std::lock_guard<std::mutex> lock(ev[i]->mu);
    if (ev[i]->queued == 0)
      return fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                  std::string("aclrtEventElapsedTime: the ") + names[i] +
                      " event was never recorded");
    if (ev[i]->completed < ev[i]->queued)
      return fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                  std::string("aclrtEventElapsedTime: the ") + names[i] +
                      " event's record has not run yet (aclrtSynchronizeEvent first)");
    t[i] = ev[i]->stamp_us;
    on[i] = ev[i]->stream;
  }
  // Every stream keeps its own modelled clock: a difference across streams means nothing.
  if (on[0] != on[1])
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "aclrtEventElapsedTime: start and end were recorded on different streams; each simulated stream "
                "has its own modelled clock, so record both events on the same stream");
  if (t[1] < t[0])
    return fail(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL,
                "aclrtEventElapsedTime: end (" + std::to_string(t[1]) +
                    " us modelled) is before start (" + std::to_string(t[0]) + " us)");
  *ms = float((t[1] - t[0]) / 1000.0);
  return ACL_SUCCESS;
}

}  // extern "C"
