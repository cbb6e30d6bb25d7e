// The judge's run harness (agenticcann-build/src/judge/harness.cpp): one generic host
// program, compiled once per simulator-header digest and linked with each candidate.
//
// The candidate side is two generated wrappers (see run.rs):
//   extern "C" uint32_t agc_judge_launch(uint32_t block_dim, void* stream, void* const* gm,
//                                        void* workspace, const void* tiling);
//   extern "C" int agc_judge_tiling(const void* platform, const uint64_t* dims, uint32_t n,
//                                   void* tiling, uint32_t* block_dim, uint64_t* workspace);
//   extern "C" uint32_t agc_judge_tiling_bytes(void);   // sizeof(AgcTiling)
//
// It reads `plan.txt` from the working directory:
//   params <n>                      GM tensors in kernel ABI order
//   param <k> <in|out> <elem bytes> <poison hex, one element, little-endian bytes>
//   max_workspace <bytes>
//   shapes <m>
//   shape <i> dims <d> <v...> counts <n values, one per param>
// and, per shape i and input k, `s<i>_p<k>.in` (raw elements). Per shape it writes
// `s<i>.status` (key value lines), `s<i>_p<k>.out` for outputs, `s<i>.launch.json` (the
// simulator's launch records), and appends `begin i` / `end i` to `progress.txt` so that
// the judge knows which shape was running if the process dies. `profile.json` holds the
// active SoC profile. Exit status: 0 when the plan ran to the end, 2 for a harness error
// (message on stderr).
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ascendc_sim/capi.h"

extern "C" uint32_t agc_judge_launch(uint32_t block_dim, void* stream, void* const* gm, void* workspace,
                                     const void* tiling);
extern "C" int agc_judge_tiling(const void* platform, const uint64_t* dims, uint32_t n, void* tiling,
                                uint32_t* block_dim, uint64_t* workspace);
extern "C" uint32_t agc_judge_tiling_bytes(void);

namespace {

struct Platform {  // layout of AgcPlatform (store-format §6)
  uint32_t aiv_cores, ub_bytes, max_block_dim, reserved;
};

struct Param {
  bool output = false;
  size_t elem = 0;
  std::vector<uint8_t> poison;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "harness error: %s\n", msg.c_str());
  std::exit(2);
}

std::vector<uint8_t> read_file(const std::string& path, size_t bytes) {
  std::vector<uint8_t> v(bytes);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) die("cannot open " + path);
  if (bytes && std::fread(v.data(), 1, bytes, f) != bytes) die("short read of " + path);
  std::fclose(f);
  return v;
}

void write_file(const std::string& path, const void* data, size_t bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) die("cannot create " + path);
  if (bytes && std::fwrite(data, 1, bytes, f) != bytes) die("short write of " + path);
  std::fclose(f);
}

uint64_t json_uint(const char* json, const char* key) {
  std::string k = std::string("\"") + key + "\":";
  const char* p = std::strstr(json, k.c_str());
  if (!p) return 0;
  return std::strtoull(p + k.size(), nullptr, 10);
}

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

}  // namespace

int main() {
  FILE* plan = std::fopen("plan.txt", "r");
  if (!plan) die("cannot open plan.txt");
  size_t nparams = 0;
  if (std::fscanf(plan, " params %zu", &nparams) != 1 || nparams == 0 || nparams > 64) die("bad params line");
  std::vector<Param> params(nparams);
  for (size_t k = 0; k < nparams; k++) {
    size_t idx = 0;
    char role[8] = {0}, hex[64] = {0};
    if (std::fscanf(plan, " param %zu %7s %zu %63s", &idx, role, &params[k].elem, hex) != 4 || idx != k)
      die("bad param line " + std::to_string(k));
    params[k].output = std::strcmp(role, "out") == 0;
    size_t hl = std::strlen(hex);
    if (hl != params[k].elem * 2) die("poison of param " + std::to_string(k) + " has the wrong width");
    for (size_t b = 0; b < params[k].elem; b++) {
      unsigned v = 0;
      std::sscanf(hex + 2 * b, "%2x", &v);
      params[k].poison.push_back(uint8_t(v));
    }
  }
  uint64_t max_workspace = 0;
  size_t nshapes = 0;
  if (std::fscanf(plan, " max_workspace %" SCNu64, &max_workspace) != 1) die("bad max_workspace line");
  if (std::fscanf(plan, " shapes %zu", &nshapes) != 1) die("bad shapes line");

  if (aclrtSetDevice(0) != ACL_SUCCESS) die("aclrtSetDevice(0) failed");
  char* prof = ascendc_sim_profile_json();
  if (!prof) die("no profile");
  write_file("profile.json", prof, std::strlen(prof));
  if (std::strstr(prof, "\"error\"")) die(std::string("profile: ") + prof);
  Platform platform{uint32_t(json_uint(prof, "aiv_cores")), uint32_t(json_uint(prof, "ub_bytes")),
                    uint32_t(json_uint(prof, "max_block_dim")), 0};
  ascendc_sim_string_free(prof);
  if (agc_judge_tiling_bytes() > 4096) die("the tiling struct is larger than 4096 bytes");

  FILE* progress = std::fopen("progress.txt", "w");
  if (!progress) die("cannot create progress.txt");
  for (size_t s = 0; s < nshapes; s++) {
    size_t idx = 0, nd = 0;
    if (std::fscanf(plan, " shape %zu dims %zu", &idx, &nd) != 2 || idx != s || nd > 64) die("bad shape line");
    std::vector<uint64_t> dims(nd);
    for (auto& d : dims)
      if (std::fscanf(plan, " %" SCNu64, &d) != 1) die("bad dims");
    if (std::fscanf(plan, " counts") != 0) die("bad counts");
    std::vector<uint64_t> counts(nparams);
    for (auto& c : counts)
      if (std::fscanf(plan, " %" SCNu64, &c) != 1) die("bad counts");

    std::fprintf(progress, "begin %zu\n", s);
    std::fflush(progress);
    const std::string pre = "s" + std::to_string(s);
    FILE* st = std::fopen((pre + ".status").c_str(), "w");
    if (!st) die("cannot create status file");
    auto status = [&](const std::string& line) {
      std::fputs((line + "\n").c_str(), st);
      std::fflush(st);
    };

    alignas(16) static unsigned char tiling[4096];
    std::memset(tiling, 0, sizeof tiling);
    uint32_t block_dim = 0;
    uint64_t workspace = 0;
    int trc = agc_judge_tiling(&platform, dims.data(), uint32_t(nd), tiling, &block_dim, &workspace);
    status("tiling_rc " + std::to_string(trc));
    status("block_dim " + std::to_string(block_dim));
    status("workspace " + std::to_string(workspace));
    bool ok = trc == 0;
    if (ok && (block_dim == 0 || block_dim > platform.max_block_dim)) {
      status("error tiling_block_dim");
      ok = false;
    }
    if (ok && workspace > max_workspace) {
      status("error workspace_too_large");
      ok = false;
    }
    if (ok) {
      std::vector<void*> dev(nparams, nullptr);
      std::vector<std::vector<uint8_t>> host(nparams);
      for (size_t k = 0; k < nparams; k++) {
        size_t bytes = size_t(counts[k]) * params[k].elem;
        if (aclrtMalloc(&dev[k], bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
          die("aclrtMalloc of " + std::to_string(bytes) + " bytes failed (memory limit?)");
        if (!params[k].output) {
          host[k] = read_file(pre + "_p" + std::to_string(k) + ".in", bytes);
        } else {
          host[k].resize(bytes);
          for (size_t b = 0; b < bytes; b++) host[k][b] = params[k].poison[b % params[k].elem];
        }
        if (bytes && aclrtMemcpy(dev[k], bytes, host[k].data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
          die("aclrtMemcpy to device failed");
        // A kernel that reads the poison back (an output read before it wrote it) gets
        // gm_output_read_before_write: it must not learn that it is being tested.
        if (params[k].output && ascendc_sim_gm_set_output(dev[k], 1) != 0) die("ascendc_sim_gm_set_output failed");
      }
      void* ws = nullptr;
      if (workspace > 0 && aclrtMalloc(&ws, size_t(workspace), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        status("error workspace_alloc");
      } else {
        aclrtStream stream = nullptr;
        if (aclrtCreateStream(&stream) != ACL_SUCCESS) die("aclrtCreateStream failed");
        uint32_t lrc = agc_judge_launch(block_dim, stream, dev.data(), ws, tiling);
        status("launch_rc " + std::to_string(lrc));
        aclError src = aclrtSynchronizeStream(stream);
        status("sync_rc " + std::to_string(int(src)));
        char* launches = ascendc_sim_stream_take_launches(stream);
        if (launches) {
          write_file(pre + ".launch.json", launches, std::strlen(launches));
          ascendc_sim_string_free(launches);
        }
        aclrtDestroyStream(stream);
        for (size_t k = 0; k < nparams; k++) {
          size_t bytes = size_t(counts[k]) * params[k].elem;
          std::vector<uint8_t> back(bytes);
          if (bytes && aclrtMemcpy(back.data(), bytes, dev[k], bytes, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
            die("aclrtMemcpy from device failed");
          if (params[k].output) {
            write_file(pre + "_p" + std::to_string(k) + ".out", back.data(), bytes);
          } else {
            size_t changed = 0, first = 0;
            for (size_t b = 0; b < bytes; b++)
              if (back[b] != host[k][b] && changed++ == 0) first = b / params[k].elem;
            if (changed)
              status("input_changed " + std::to_string(k) + " " + std::to_string(changed) + " " +
                     std::to_string(first));
          }
          // The simulator reserves the request rounded up to 32 bytes plus 32 bytes, filled
          // with 0xFF, and registers only the request: a write past the end lands here.
          const uint8_t* p = static_cast<const uint8_t*>(dev[k]);
          size_t guard_end = round_up(bytes ? bytes : 1, 32) + 32, bad = 0;
          for (size_t b = bytes ? bytes : 1; b < guard_end; b++) bad += p[b] != 0xFF;
          if (bad) status("guard " + std::to_string(k) + " " + std::to_string(bad));
        }
      }
      if (ws) aclrtFree(ws);
      for (void* d : dev) aclrtFree(d);
    }
    status("done");
    std::fclose(st);
    std::fprintf(progress, "end %zu\n", s);
    std::fflush(progress);
  }
  std::fclose(progress);
  std::fclose(plan);
  return 0;
}
