// src/acl/launch.cpp — ascendc_sim::launch_async (launch.h): a kernel launch queued on a
// stream. The generated aclrtlaunch_<kernel> launchers call it; the stream's worker runs
// the kernel through run_kernel and records the result (modelled clock, sticky error,
// diagnostics for the C API).
#include <string>
#include <utility>

#include "runtime.h"

namespace ascendc_sim {

int launch_async(void* stream, const std::string& kernel_name, uint32_t block_dim,
                 std::function<void()> body) {
  aclError code = ACL_SUCCESS;
  auto s = acl::resolve_stream(stream, "aclrtlaunch", &code);
  if (!s) return code;
  if (!body)
    return acl::fail(ACL_ERROR_INVALID_PARAM, "launch of " + kernel_name + ": empty kernel body");
  return s->enqueue(acl::Task{
      acl::Task::Kind::Kernel,
      [name = kernel_name, block_dim, body = std::move(body)](acl::Stream& st) {
        st.finish_launch(run_kernel(name, block_dim, body));
      }});
}

}  // namespace ascendc_sim
