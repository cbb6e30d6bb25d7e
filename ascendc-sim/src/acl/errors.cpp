// src/acl/errors.cpp — recent-error messages (aclGetRecentErrMsg) and code names.
#include <cstdio>
#include <string>

#include "runtime.h"

namespace ascendc_sim::acl {
namespace {
thread_local std::string recent_error;
thread_local bool has_recent_error = false;
}  // namespace

aclError fail(aclError code, std::string message) {
  recent_error = std::move(message);
  has_recent_error = true;
  return code;
}

const char* error_name(aclError code) {
  switch (code) {
    case ACL_SUCCESS: return "ACL_SUCCESS";
    case ACL_ERROR_INVALID_PARAM: return "ACL_ERROR_INVALID_PARAM";
    case ACL_ERROR_UNINITIALIZE: return "ACL_ERROR_UNINITIALIZE";
    case ACL_ERROR_REPEAT_INITIALIZE: return "ACL_ERROR_REPEAT_INITIALIZE";
    case ACL_ERROR_REPEAT_FINALIZE: return "ACL_ERROR_REPEAT_FINALIZE";
    case ACL_ERROR_BAD_ALLOC: return "ACL_ERROR_BAD_ALLOC";
    case ACL_ERROR_API_NOT_SUPPORT: return "ACL_ERROR_API_NOT_SUPPORT";
    case ACL_ERROR_INVALID_DEVICE: return "ACL_ERROR_INVALID_DEVICE";
    case ACL_ERROR_INVALID_RESOURCE_HANDLE: return "ACL_ERROR_INVALID_RESOURCE_HANDLE";
    case ACL_ERROR_INTERNAL_ERROR: return "ACL_ERROR_INTERNAL_ERROR";
    case ACL_ERROR_RT_PARAM_INVALID: return "ACL_ERROR_RT_PARAM_INVALID";
    case ACL_ERROR_RT_INVALID_DEVICEID: return "ACL_ERROR_RT_INVALID_DEVICEID";
    case ACL_ERROR_RT_CONTEXT_NULL: return "ACL_ERROR_RT_CONTEXT_NULL";
    case ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID: return "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID";
    case ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL: return "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL";
    case ACL_ERROR_RT_MEMORY_ALLOCATION: return "ACL_ERROR_RT_MEMORY_ALLOCATION";
    case ACL_ERROR_RT_MEMORY_FREE: return "ACL_ERROR_RT_MEMORY_FREE";
    case ACL_ERROR_RT_INTERNAL_ERROR: return "ACL_ERROR_RT_INTERNAL_ERROR";
    case ACL_ERROR_RT_EVENT_NOT_COMPLETE: return "ACL_ERROR_RT_EVENT_NOT_COMPLETE";
    case ACL_ERROR_RT_AICORE_EXCEPTION: return "ACL_ERROR_RT_AICORE_EXCEPTION";
    default: return "ACL_ERROR_UNKNOWN";
  }
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

}  // namespace ascendc_sim::acl

extern "C" const char* aclGetRecentErrMsg(void) {
  using namespace ascendc_sim::acl;
  return has_recent_error ? recent_error.c_str() : nullptr;
}
