// src/acl/stream.cpp — asynchronous streams: a FIFO of tasks run in order by one worker
// thread per stream, a modelled clock, and a sticky error state after a failed launch.
#include <string>
#include <utility>

#include "runtime.h"

namespace ascendc_sim::acl {

Stream::Stream(int32_t device, bool is_default)
    : device_(device), is_default_(is_default), worker_([this] { worker_loop(); }) {}

Stream::~Stream() { shutdown(); }

aclError Stream::enqueue(Task task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_)
    return fail(ACL_ERROR_INVALID_PARAM, "stream " + hex(this) + " is being destroyed");
  queue_.push_back(std::move(task));
  work_cv_.notify_one();
  return ACL_SUCCESS;
}

aclError Stream::synchronize() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
  return error_;
}

void Stream::shutdown() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (joined_) return;
    idle_cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
    stopping_ = true;
    joined_ = true;
    work_cv_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
}

void Stream::worker_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    Task task = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    // After a failed launch only event records run (they complete with the error), as
    // work behind an AI-core exception never executes on the NPU.
    const bool skip = error_ != ACL_SUCCESS && task.kind != Task::Kind::Record;
    lock.unlock();
    if (!skip) {
      try {
        task.run(*this);
      } catch (...) {
        // run_kernel never throws by contract; this keeps a broken task from taking the
        // host process down and turns it into a failed launch with a diagnostic.
        LaunchResult r;
        r.kernel = "<stream task>";
        r.failed = true;
        Diagnostic d;
        d.kind = "internal_error";
        d.api = "aclrtSynchronizeStream";
        d.message = "a task queued on the stream threw a C++ exception";
        r.diagnostics.push_back(std::move(d));
        finish_launch(std::move(r));
      }
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

void Stream::finish_launch(LaunchResult result) {
  std::lock_guard<std::mutex> lock(mu_);
  if (result.failed) {
    if (error_ == ACL_SUCCESS) {
      error_ = ACL_ERROR_RT_AICORE_EXCEPTION;
      failure_ = result;
    }
  } else {
    clock_us_ += result.report.total_us;
  }
  last_ = result;
  launches_.push_back(std::move(result));
  while (launches_.size() > kMaxKeptLaunches) launches_.pop_front();
}

void Stream::advance_clock_to(double t_us) {
  std::lock_guard<std::mutex> lock(mu_);
  if (t_us > clock_us_) clock_us_ = t_us;
}

void Stream::clock_and_error(double* clock_us, aclError* error) {
  std::lock_guard<std::mutex> lock(mu_);
  *clock_us = clock_us_;
  *error = error_;
}

std::vector<LaunchResult> Stream::take_launches() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<LaunchResult> out(std::make_move_iterator(launches_.begin()),
                                std::make_move_iterator(launches_.end()));
  launches_.clear();
  return out;
}

std::optional<LaunchResult> Stream::last_launch() {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

std::optional<LaunchResult> Stream::failure() {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

double Stream::clock_us() {
  std::lock_guard<std::mutex> lock(mu_);
  return clock_us_;
}

}  // namespace ascendc_sim::acl

using namespace ascendc_sim::acl;

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  if (!stream) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  auto ctx = current_context("aclrtCreateStream");
  if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
  auto s = std::make_shared<Stream>(ctx->device, false);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  rt.streams.emplace(s.get(), s);
  *stream = s.get();
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  Runtime& rt = runtime();
  std::shared_ptr<Stream> s;
  {
    std::lock_guard<std::mutex> lock(rt.mu);
    auto it = rt.streams.find(stream);
    if (it == rt.streams.end())
      return fail(ACL_ERROR_INVALID_PARAM,
                  "aclrtDestroyStream: " + hex(stream) + " is not a live stream");
    if (it->second->is_default())
      return fail(ACL_ERROR_INVALID_PARAM,
                  "aclrtDestroyStream: a default stream cannot be destroyed");
    s = std::move(it->second);
    rt.streams.erase(it);
  }
  s->shutdown();
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  aclError code = ACL_SUCCESS;
  auto s = resolve_stream(stream, "aclrtSynchronizeStream", &code);
  if (!s) return code;
  aclError e = s->synchronize();
  if (e == ACL_SUCCESS) return ACL_SUCCESS;
  std::string msg = "aclrtSynchronizeStream: a kernel launched on stream " + hex(stream) +
                    " failed; the stream stays in the error state until it is destroyed";
  if (auto f = s->failure()) {
    msg = "aclrtSynchronizeStream: kernel " + f->kernel + " (blockDim " +
          std::to_string(f->block_dim) + ") failed";
    for (const ascendc_sim::Diagnostic& d : f->diagnostics)
      if (d.severity == ascendc_sim::Severity::Error) {
        msg += ": " + d.to_line();
        break;
      }
  }
  return fail(e, std::move(msg));
}

}  // extern "C"
