// The runtime library: operators behind a virtual interface, a bump allocator over the
// application's pools, a method that dispatches one operator per model layer. Built
// with -fPIC like the precompiled ExecuTorch libraries: the vtable addresses the
// constructors store come from the GOT, so a GOT that startup never copied gives every
// operator a garbage vptr, and the first virtual call faults.
#include <new>

#include "rt.h"
#include "tinynet.h"

namespace rt {

struct Context {
  const void* model;
  const int8_t* input;
  int8_t* planned;
  int8_t* scores;
};

class Operator {
 public:
  explicit Operator(uint32_t index) : index_(index) {}
  virtual int run(Context& ctx) = 0;
  virtual const char* name() const = 0;

 protected:
  int run_layer(Context& ctx) {
    return tinynet_run_layer(ctx.model, index_, ctx.input, ctx.planned, ctx.scores);
  }
  uint32_t index_;
};

class Conv final : public Operator {
 public:
  using Operator::Operator;
  int run(Context& ctx) override { return run_layer(ctx); }
  const char* name() const override { return "conv"; }
};

class DepthwiseConv final : public Operator {
 public:
  using Operator::Operator;
  int run(Context& ctx) override { return run_layer(ctx); }
  const char* name() const override { return "depthwise_conv"; }
};

// Accumulates into int32 planned memory that the memory plan leaves zeroed: the
// planned pool is expected to come out of the startup's zero table.
class MeanPool final : public Operator {
 public:
  using Operator::Operator;
  int run(Context& ctx) override { return run_layer(ctx); }
  const char* name() const override { return "mean"; }
};

class Linear final : public Operator {
 public:
  using Operator::Operator;
  int run(Context& ctx) override { return run_layer(ctx); }
  const char* name() const override { return "linear"; }
};

class Softmax final : public Operator {
 public:
  using Operator::Operator;
  int run(Context& ctx) override { return run_layer(ctx); }
  const char* name() const override { return "softmax"; }
};

class MemoryAllocator {
 public:
  MemoryAllocator(void* base, uint32_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}
  void* allocate(uint32_t size, uint32_t align = 8) {
    uint32_t at = (used_ + align - 1) & ~(align - 1);
    if (at + size > size_) return nullptr;
    used_ = at + size;
    return base_ + at;
  }

 private:
  uint8_t* base_;
  uint32_t size_;
  uint32_t used_ = 0;
};

struct Method {
  const void* model;
  Operator** ops;
  uint32_t num_ops;
  int8_t* planned;
  uint32_t planned_size;
};

// One entry per tensor of the memory plan. The loader keeps the whole table on the
// stack (about 10 KiB), as a real runtime's method loader needs kilobytes of stack.
struct TensorLifetime {
  uint32_t first_use, last_use, size, offset;
  uint32_t reserved[6];
};
constexpr uint32_t kMaxTensors = 256;

static uint32_t plan_memory(const void* model, uint32_t num_layers) {
  TensorLifetime table[kMaxTensors];
  for (uint32_t i = 0; i < kMaxTensors; i++) {
    table[i].first_use = table[i].last_use = table[i].size = table[i].offset = 0;
    for (uint32_t& r : table[i].reserved) r = 0;
  }
  uint32_t high_water = 0;
  for (uint32_t i = 0; i < num_layers && i < kMaxTensors; i++) {
    const tinynet_layer_t* l = tinynet_layer(model, i);
    table[i].first_use = i;
    table[i].last_use = i + 1;
    table[i].size = l->out_h * l->out_w * l->out_c;
    table[i].offset = l->out_off == TINYNET_SCORES ? 0 : l->out_off;
    uint32_t end = table[i].offset + table[i].size;
    if (l->out_off != TINYNET_SCORES && end > high_water) high_water = end;
  }
  // The arena also holds the pool's accumulators after the activations.
  return high_water > tinynet_arena_size(model) ? high_water : tinynet_arena_size(model);
}

static void* checked_malloc(uint32_t size) {
  void* p = malloc(size);
  if (!p) rt_log("alloc failed: {} bytes", size);
  return p;
}

static Operator* make_operator(MemoryAllocator& pool, const tinynet_layer_t* layer, uint32_t i) {
  switch (layer->op) {
    case TINYNET_OP_CONV: return new (pool.allocate(sizeof(Conv))) Conv(i);
    case TINYNET_OP_DWCONV: return new (pool.allocate(sizeof(DepthwiseConv))) DepthwiseConv(i);
    case TINYNET_OP_AVGPOOL: return new (pool.allocate(sizeof(MeanPool))) MeanPool(i);
    case TINYNET_OP_FC: return new (pool.allocate(sizeof(Linear))) Linear(i);
    case TINYNET_OP_SOFTMAX: return new (pool.allocate(sizeof(Softmax))) Softmax(i);
    default: return nullptr;
  }
}

}  // namespace rt

extern "C" int rt_load_method(const void* model, rt_pool_t method_pool, rt_pool_t temp_pool,
                              rt_pool_t planned_pool, void** method_out) {
  using namespace rt;
  int rc = tinynet_check(model);
  if (rc != TINYNET_OK) {
    rt_log("model rejected: tinynet error {}", static_cast<uint32_t>(rc));
    return RT_BAD_MODEL;
  }
  const auto* header = static_cast<const tinynet_header_t*>(model);
  // Bookkeeping from the heap: the tensor table, a float staging buffer for the input
  // (the application's preprocessing writes floats), the event tracer's buffer.
  void* tensors = checked_malloc(header->num_layers * 64);
  void* staging = checked_malloc(header->input_h * header->input_w * header->input_c * 4);
  void* tracer = checked_malloc(4096);
  if (!tensors || !staging || !tracer) return RT_NO_MEMORY;

  uint32_t planned = plan_memory(model, header->num_layers);
  if (planned > planned_pool.size) {
    rt_log("planned memory too small: {} bytes needed", planned);
    return RT_NO_MEMORY;
  }
  MemoryAllocator methods(method_pool.base, method_pool.size);
  MemoryAllocator temps(temp_pool.base, temp_pool.size);
  auto* m = static_cast<Method*>(methods.allocate(sizeof(Method)));
  auto** ops = static_cast<Operator**>(temps.allocate(header->num_layers * sizeof(Operator*)));
  if (!m || !ops) {
    rt_log("method pool exhausted", 0);
    return RT_NO_MEMORY;
  }
  for (uint32_t i = 0; i < header->num_layers; i++) {
    ops[i] = make_operator(methods, tinynet_layer(model, i), i);
    if (!ops[i]) return RT_BAD_MODEL;
  }
  m->model = model;
  m->ops = ops;
  m->num_ops = header->num_layers;
  m->planned = static_cast<int8_t*>(planned_pool.base);
  m->planned_size = planned;
  *method_out = m;
  return RT_OK;
}

extern "C" int rt_execute(void* method, const int8_t* input, int8_t* scores) {
  auto* m = static_cast<rt::Method*>(method);
  rt::Context ctx{m->model, input, m->planned, scores};
  for (uint32_t i = 0; i < m->num_ops; i++) {
    if (m->ops[i]->run(ctx) != TINYNET_OK) {
      rt_log("operator failed: {}", i);
      return RT_OP_FAILED;
    }
  }
  return RT_OK;
}

// Pure virtual calls cannot happen here; the symbol is still required by the ABI.
extern "C" void __cxa_pure_virtual() {
  for (;;) {
  }
}
