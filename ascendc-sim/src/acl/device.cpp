// src/acl/device.cpp — aclInit/aclFinalize, devices, contexts and the handle registries.
#include <string>

#include "runtime.h"

namespace ascendc_sim::acl {
namespace {

thread_local const Context* current = nullptr;

bool valid_device(int32_t id) { return id >= 0 && uint32_t(id) < kDeviceCount; }

aclError invalid_device(const char* api, int32_t id) {
  return fail(ACL_ERROR_RT_INVALID_DEVICEID,
              std::string(api) + ": device " + std::to_string(id) +
                  " does not exist (the simulator has " + std::to_string(kDeviceCount) +
                  " device, id 0)");
}

// Registers a new context; caller holds rt.mu.
std::shared_ptr<Context> new_context(Runtime& rt, int32_t device, bool is_default) {
  auto ctx = std::make_shared<Context>();
  ctx->device = device;
  ctx->is_default = is_default;
  rt.contexts.emplace(ctx.get(), ctx);
  return ctx;
}

// Unregisters `ctx` and returns its default stream (to be shut down outside the lock).
std::shared_ptr<Stream> drop_context(Runtime& rt, const std::shared_ptr<Context>& ctx) {
  rt.contexts.erase(ctx.get());
  std::shared_ptr<Stream> s = std::move(ctx->default_stream);
  if (s) rt.streams.erase(s.get());
  return s;
}

}  // namespace

Runtime& runtime() {
  static Runtime* rt = new Runtime();  // leaked: see runtime.h
  return *rt;
}

std::shared_ptr<Context> current_context(const char* api) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (current != nullptr) {
    auto it = rt.contexts.find(current);
    if (it != rt.contexts.end()) return it->second;
  }
  fail(ACL_ERROR_RT_CONTEXT_NULL,
       std::string(api) + ": the calling thread has no current context (call aclrtSetDevice, "
                          "aclrtCreateContext or aclrtSetCurrentContext on this thread first)");
  return nullptr;
}

void set_current_context(const Context* ctx) { current = ctx; }

std::shared_ptr<Stream> resolve_stream(aclrtStream handle, const char* api, aclError* code) {
  Runtime& rt = runtime();
  if (handle != nullptr) {
    std::lock_guard<std::mutex> lock(rt.mu);
    auto it = rt.streams.find(handle);
    if (it != rt.streams.end()) return it->second;
    *code = fail(ACL_ERROR_INVALID_PARAM,
                 std::string(api) + ": stream " + hex(handle) +
                     " is not a live stream (never created, or already destroyed)");
    return nullptr;
  }
  auto ctx = current_context(api);
  if (!ctx) {
    *code = ACL_ERROR_RT_CONTEXT_NULL;
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(rt.mu);
  if (!ctx->default_stream) {
    ctx->default_stream = std::make_shared<Stream>(ctx->device, true);
    rt.streams.emplace(ctx->default_stream.get(), ctx->default_stream);
  }
  return ctx->default_stream;
}

std::vector<std::shared_ptr<Stream>> all_streams(int32_t device) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  std::vector<std::shared_ptr<Stream>> out;
  for (auto& [_, s] : rt.streams)
    if (device < 0 || s->device() == device) out.push_back(s);
  return out;
}

}  // namespace ascendc_sim::acl

using namespace ascendc_sim::acl;

extern "C" {

aclError aclInit(const char* /*configPath*/) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (rt.initialized)
    return fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: AscendCL is already initialized");
  rt.initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (!rt.initialized)
    return fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: AscendCL is not initialized");
  rt.initialized = false;
  return ACL_SUCCESS;
}

aclError aclrtGetVersion(int32_t* major, int32_t* minor, int32_t* patch) {
  if (!major || !minor || !patch)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: null output pointer");
  *major = ACL_MAJOR_VERSION;
  *minor = ACL_MINOR_VERSION;
  *patch = ACL_PATCH_VERSION;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (!count) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  *count = kDeviceCount;
  return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode* mode) {
  if (!mode) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is null");
  *mode = ACL_HOST;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t id) {
  if (!valid_device(id)) return invalid_device("aclrtSetDevice", id);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (rt.device_refs[id]++ == 0) rt.default_context[id] = new_context(rt, id, true);
  set_current_context(rt.default_context[id].get());
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t id) {
  if (!valid_device(id)) return invalid_device("aclrtResetDevice", id);
  Runtime& rt = runtime();
  std::shared_ptr<Stream> to_stop;
  {
    std::lock_guard<std::mutex> lock(rt.mu);
    if (rt.device_refs[id] == 0) return ACL_SUCCESS;  // nothing open: a no-op, as in CANN
    if (--rt.device_refs[id] > 0) return ACL_SUCCESS;
    std::shared_ptr<Context> ctx = std::move(rt.default_context[id]);
    if (current == ctx.get()) set_current_context(nullptr);
    to_stop = drop_context(rt, ctx);
  }
  if (to_stop) to_stop->shutdown();
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t* id) {
  if (!id) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
  auto ctx = current_context("aclrtGetDevice");
  if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
  *id = ctx->device;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  auto ctx = current_context("aclrtSynchronizeDevice");
  if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
  aclError first = ACL_SUCCESS;
  for (auto& s : all_streams(ctx->device)) {
    aclError e = s->synchronize();
    if (first == ACL_SUCCESS && e != ACL_SUCCESS) first = e;
  }
  if (first != ACL_SUCCESS)
    return fail(first, "aclrtSynchronizeDevice: a kernel launch on one of the device's streams "
                       "failed; synchronize each stream to find it");
  return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext* context, int32_t id) {
  if (!context) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
  if (!valid_device(id)) return invalid_device("aclrtCreateContext", id);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto ctx = new_context(rt, id, false);
  set_current_context(ctx.get());
  *context = ctx.get();
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  Runtime& rt = runtime();
  std::shared_ptr<Stream> to_stop;
  {
    std::lock_guard<std::mutex> lock(rt.mu);
    auto it = rt.contexts.find(context);
    if (it == rt.contexts.end())
      return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: " + hex(context) +
                                               " is not a live context");
    if (it->second->is_default)
      return fail(ACL_ERROR_INVALID_PARAM,
                  "aclrtDestroyContext: the default context of a device is released by "
                  "aclrtResetDevice, not aclrtDestroyContext");
    auto ctx = it->second;
    if (current == ctx.get()) set_current_context(nullptr);
    to_stop = drop_context(rt, ctx);
  }
  if (to_stop) to_stop->shutdown();
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (rt.contexts.find(context) == rt.contexts.end())
    return fail(ACL_ERROR_INVALID_PARAM,
                "aclrtSetCurrentContext: " + hex(context) + " is not a live context");
  set_current_context(static_cast<const Context*>(context));
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (!context) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
  auto ctx = current_context("aclrtGetCurrentContext");
  if (!ctx) return ACL_ERROR_RT_CONTEXT_NULL;
  *context = ctx.get();
  return ACL_SUCCESS;
}

}  // extern "C"
