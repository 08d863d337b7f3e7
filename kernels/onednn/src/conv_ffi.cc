// oneDNN 2-D convolutions (forward, backward data, backward weights) as one XLA FFI handler.
//
// One handler serves the three passes: `kind` picks which, the two operands and the result are
// (src, weights) -> dst, (diff_dst, weights) -> diff_src and (src, diff_dst) -> diff_weights.
// Every shape comes from the buffers, so the attributes are only the layouts and the window:
// NCHW or NHWC data (`channels_last`), OIHW or OHWI weights (`weights_last`), independently, so
// a channels-last program hands over its OIHW weights as they lie (no transpose per call).
// Primitive creation costs far more than a small convolution, so primitives (with the reorders
// between the caller's plain layout and the blocked one oneDNN picks) are cached per shape.
//
// Every call runs on an OpenMP team as wide as the machine, started by whichever of XLA's
// threads runs the call, so calls run one at a time (two teams at once would put twice as many
// threads as cores to work), and each call keeps its team on distinct CPUs (`CallOnOwnCpus`).
#include <omp.h>
#include <sched.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;
using dnnl::memory;

namespace {

enum Kind : int64_t { kForward = 0, kBackwardData = 1, kBackwardWeights = 2 };

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

struct Geometry {
  memory::dims src, wei, dst;  // logical oneDNN dims: NCHW, [G]OIHW, NCHW
  memory::dims src_strides, wei_strides, dst_strides;  // the caller's memory order
};

// Data dims (n, c, h, w) and strides for a buffer of shape NCHW (channels_last = 0) or NHWC.
void DataDesc(ffi::Span<const int64_t> shape, bool channels_last, memory::dims* dims,
              memory::dims* strides) {
  if (!channels_last) {
    const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
    *dims = {n, c, h, w};
    *strides = {c * h * w, h * w, w, 1};
  } else {
    const int64_t n = shape[0], h = shape[1], w = shape[2], c = shape[3];
    *dims = {n, c, h, w};
    *strides = {h * w * c, 1, w * c, c};
  }
}

// Weights of shape OIHW (weights_last = 0) or OHWI, I being the channels of one group.
void WeightDesc(ffi::Span<const int64_t> shape, bool weights_last, int64_t groups,
                memory::dims* dims, memory::dims* strides) {
  int64_t o, i, kh, kw, so, si, sh, sw;
  if (!weights_last) {
    o = shape[0], i = shape[1], kh = shape[2], kw = shape[3];
    so = i * kh * kw, si = kh * kw, sh = kw, sw = 1;
  } else {
    o = shape[0], kh = shape[1], kw = shape[2], i = shape[3];
    so = kh * kw * i, si = 1, sh = kw * i, sw = i;
  }
  if (groups == 1) {
    *dims = {o, i, kh, kw};
    *strides = {so, si, sh, sw};
  } else {
    const int64_t og = o / groups;
    *dims = {groups, og, i, kh, kw};
    *strides = {og * so, so, si, sh, sw};
  }
}

// A cached primitive plus the memory descriptors it wants for (arg0, arg1, result), and the
// reorders between those and the caller's layout. Every primitive takes its scratchpad from
// the caller (scratchpad_mode::user): XLA may run two of these custom calls at once on its
// threads, and a scratchpad shared by the library would then be written by both.
struct Entry {
  dnnl::primitive prim;
  memory::desc user[3], want[3], scratch;
  int arg_id[3];
  dnnl::primitive reorder[3];
  memory::desc reorder_scratch[3];
};

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void AddReorders(Entry* e) {
  auto& eng = Engine();
  for (int i = 0; i < 3; ++i) {
    if (e->user[i] == e->want[i]) continue;
    const memory::desc& from = i < 2 ? e->user[i] : e->want[i];
    const memory::desc& to = i < 2 ? e->want[i] : e->user[i];
    dnnl::reorder::primitive_desc pd(eng, from, eng, to, UserScratchpad());
    e->reorder[i] = dnnl::reorder(pd);
    e->reorder_scratch[i] = pd.scratchpad_desc();
  }
}

// For one call, keeps the calling thread on the CPU it runs on and its OpenMP workers each on
// another CPU it may use (assigned when the caller's CPU changes; workers serve one caller).
// Why: a scheduler that packs threads which have been idle onto few CPUs (bench/NOTES.md,
// session 21: such a VM) otherwise runs the team's threads in turn on one CPU for the first
// ~100 ms after an idle spell, one step of a ResNeXt block. Skipped where OpenMP binds threads
// itself (OMP_PROC_BIND), the team is wider than the CPUs allowed, or FLOWJOB_ONEDNN_SPREAD=0.
class CallOnOwnCpus {
 public:
  CallOnOwnCpus() {
    static const bool enabled = [] {
      const char* v = std::getenv("FLOWJOB_ONEDNN_SPREAD");
      return !(v && v[0] == '0') && omp_get_proc_bind() == omp_proc_bind_false;
    }();
    if (!enabled || sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
    const int allowed = CPU_COUNT(&saved_), team = omp_get_max_threads();
    const int here = sched_getcpu();
    if (allowed < 2 || team < 2 || team > allowed || here < 0 || !CPU_ISSET(here, &saved_))
      return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(here, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) return;
    restore_ = true;
    thread_local int team_around = -1;  // the CPU this thread's workers were placed around
    thread_local cpu_set_t team_mask;   // ... out of this set
    if (team_around == here && CPU_EQUAL(&team_mask, &saved_)) return;
    team_around = here, team_mask = saved_;
    std::vector<int> others;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &saved_) && c != here) others.push_back(c);
#pragma omp parallel num_threads(team)
    {
      const int t = omp_get_thread_num();
      if (t > 0) {
        cpu_set_t mine;
        CPU_ZERO(&mine);
        CPU_SET(others[(t - 1) % others.size()], &mine);
        sched_setaffinity(0, sizeof(mine), &mine);
      }
    }
  }
  ~CallOnOwnCpus() {
    if (restore_) sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  CallOnOwnCpus(const CallOnOwnCpus&) = delete;
  CallOnOwnCpus& operator=(const CallOnOwnCpus&) = delete;

 private:
  cpu_set_t saved_;
  bool restore_ = false;
};

std::mutex run_mutex;  // one call at a time: each one's team is as wide as the machine

std::mutex cache_mutex;
std::unordered_map<std::string, std::shared_ptr<Entry>> cache;

// NHWC data (`channels_last`) is handed to the primitive as it lies: oneDNN's brgemm
// convolutions run on it directly, so only the weights are reordered (NCHW data goes into
// and out of the blocked layout the primitive picks, ~22% of ResNet-50's oneDNN time).
std::shared_ptr<Entry> Build(int64_t kind, const Geometry& g, const memory::dims& strides,
                             const memory::dims& dilates, const memory::dims& pad_l,
                             const memory::dims& pad_r, bool channels_last) {
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  const memory::desc src_user(g.src, f32, g.src_strides), wei_user(g.wei, f32, g.wei_strides),
      dst_user(g.dst, f32, g.dst_strides);
  const memory::desc src_any = channels_last ? src_user : memory::desc(g.src, f32, tag::any),
                     wei_any(g.wei, f32, tag::any),
                     dst_any = channels_last ? dst_user : memory::desc(g.dst, f32, tag::any);
  auto& eng = Engine();
  const auto attr = UserScratchpad();
  const auto prop = kind == kForward ? dnnl::prop_kind::forward_inference
                                     : dnnl::prop_kind::forward_training;
  dnnl::convolution_forward::primitive_desc fwd(eng, prop, dnnl::algorithm::convolution_direct,
                                                src_any, wei_any, dst_any, strides, dilates,
                                                pad_l, pad_r, attr);
  auto e = std::make_shared<Entry>();
  if (kind == kForward) {
    e->prim = dnnl::convolution_forward(fwd);
    e->scratch = fwd.scratchpad_desc();
    e->user[0] = src_user, e->user[1] = wei_user, e->user[2] = dst_user;
    e->want[0] = fwd.src_desc(), e->want[1] = fwd.weights_desc(), e->want[2] = fwd.dst_desc();
    e->arg_id[0] = DNNL_ARG_SRC, e->arg_id[1] = DNNL_ARG_WEIGHTS, e->arg_id[2] = DNNL_ARG_DST;
  } else if (kind == kBackwardData) {
    dnnl::convolution_backward_data::primitive_desc pd(
        eng, dnnl::algorithm::convolution_direct, src_any, wei_any, dst_any, strides, dilates,
        pad_l, pad_r, fwd, attr);
    e->prim = dnnl::convolution_backward_data(pd);
    e->scratch = pd.scratchpad_desc();
    e->user[0] = dst_user, e->user[1] = wei_user, e->user[2] = src_user;
    e->want[0] = pd.diff_dst_desc(), e->want[1] = pd.weights_desc(),
    e->want[2] = pd.diff_src_desc();
    e->arg_id[0] = DNNL_ARG_DIFF_DST, e->arg_id[1] = DNNL_ARG_WEIGHTS,
    e->arg_id[2] = DNNL_ARG_DIFF_SRC;
  } else {
    dnnl::convolution_backward_weights::primitive_desc pd(
        eng, dnnl::algorithm::convolution_direct, src_any, wei_any, dst_any, strides, dilates,
        pad_l, pad_r, fwd, attr);
    e->prim = dnnl::convolution_backward_weights(pd);
    e->scratch = pd.scratchpad_desc();
    e->user[0] = src_user, e->user[1] = dst_user, e->user[2] = wei_user;
    e->want[0] = pd.src_desc(), e->want[1] = pd.diff_dst_desc(),
    e->want[2] = pd.diff_weights_desc();
    e->arg_id[0] = DNNL_ARG_SRC, e->arg_id[1] = DNNL_ARG_DIFF_DST,
    e->arg_id[2] = DNNL_ARG_DIFF_WEIGHTS;
  }
  AddReorders(e.get());
  return e;
}

// Runs `prim` with a scratchpad of its own for this call.
void Run(const dnnl::primitive& prim, const memory::desc& scratch, dnnl::stream& stream,
         std::unordered_map<int, memory> args) {
  if (scratch.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratch, Engine()));
  prim.execute(stream, args);
}

std::string Key(int64_t kind, const Geometry& g, const memory::dims& s, const memory::dims& d,
                const memory::dims& pl, const memory::dims& pr) {
  std::ostringstream k;
  k << kind;
  for (const auto* v : {&g.src, &g.wei, &g.dst, &g.src_strides, &g.wei_strides, &g.dst_strides,
                        &s, &d, &pl, &pr}) {
    k << '|';
    for (auto x : *v) k << x << ',';
  }
  return k.str();
}

memory::dims Dims(ffi::Span<const int64_t> v) { return memory::dims(v.begin(), v.end()); }

ffi::Error ConvImpl(ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                    ffi::ResultBuffer<ffi::F32> out, int64_t kind, int64_t channels_last,
                    int64_t weights_last, int64_t groups, ffi::Span<const int64_t> strides,
                    ffi::Span<const int64_t> dilations, ffi::Span<const int64_t> pad_l,
                    ffi::Span<const int64_t> pad_r) {
  if (a.dimensions().size() != 4 || b.dimensions().size() != 4 ||
      out->dimensions().size() != 4 || kind < kForward || kind > kBackwardWeights) {
    return ffi::Error::InvalidArgument("flowjob_onednn_conv: 4-D buffers and kind 0..2 expected");
  }
  // Which buffer holds src, weights, dst for this pass.
  ffi::Span<const int64_t> src = a.dimensions(), wei = b.dimensions(), dst = out->dimensions();
  if (kind == kBackwardData) src = out->dimensions(), dst = a.dimensions();
  if (kind == kBackwardWeights) wei = out->dimensions(), dst = b.dimensions();
  Geometry g;
  DataDesc(src, channels_last, &g.src, &g.src_strides);
  DataDesc(dst, channels_last, &g.dst, &g.dst_strides);
  WeightDesc(wei, weights_last, groups, &g.wei, &g.wei_strides);
  memory::dims dil = Dims(dilations);
  for (auto& d : dil) d -= 1;  // oneDNN counts the gaps, XLA the step
  const memory::dims s = Dims(strides), pl = Dims(pad_l), pr = Dims(pad_r);
  try {
    const std::string key = Key(kind, g, s, dil, pl, pr);
    std::shared_ptr<Entry> e;
    {
      std::lock_guard<std::mutex> lock(cache_mutex);
      auto it = cache.find(key);
      if (it != cache.end()) e = it->second;
    }
    if (!e) {
      e = Build(kind, g, s, dil, pl, pr, channels_last != 0);
      std::lock_guard<std::mutex> lock(cache_mutex);
      cache.emplace(key, e);
    }
    auto& eng = Engine();
    thread_local dnnl::stream stream(eng);
    std::lock_guard<std::mutex> one_at_a_time(run_mutex);
    CallOnOwnCpus on_own_cpus;
    void* ptrs[3] = {a.untyped_data(), b.untyped_data(), out->untyped_data()};
    std::unordered_map<int, memory> args;
    memory result_user, result_inner;
    for (int i = 0; i < 3; ++i) {
      memory user(e->user[i], eng, ptrs[i]);
      if (e->user[i] == e->want[i]) {
        args.emplace(e->arg_id[i], user);
        continue;
      }
      memory inner(e->want[i], eng);  // blocked layout chosen by oneDNN: reorder in / out
      if (i < 2) {
        Run(e->reorder[i], e->reorder_scratch[i], stream,
            {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}});
      } else {
        result_user = user, result_inner = inner;
      }
      args.emplace(e->arg_id[i], inner);
    }
    Run(e->prim, e->scratch, stream, args);
    if (result_inner) {
      Run(e->reorder[2], e->reorder_scratch[2], stream,
          {{DNNL_ARG_FROM, result_inner}, {DNNL_ARG_TO, result_user}});
    }
    stream.wait();
  } catch (const dnnl::error& err) {
    return ffi::Error::Internal(std::string("flowjob_onednn_conv: oneDNN: ") + err.what());
  }
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(FlowjobOnednnConv, ConvImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int64_t>("kind")
                                  .Attr<int64_t>("channels_last")
                                  .Attr<int64_t>("weights_last")
                                  .Attr<int64_t>("groups")
                                  .Attr<ffi::Span<const int64_t>>("strides")
                                  .Attr<ffi::Span<const int64_t>>("dilations")
                                  .Attr<ffi::Span<const int64_t>>("pad_l")
                                  .Attr<ffi::Span<const int64_t>>("pad_r"));
