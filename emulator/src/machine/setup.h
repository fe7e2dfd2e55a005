// Loading the image and the host's files and actions into a machine's memory.
#pragma once

#include <cstdint>
#include <vector>

#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"
#include "semihosting.h"

namespace faultline::arm {
class Core;
}

namespace faultline::machine {

// Writes the image into memory as `mode` says; throws InputError for a segment that no
// region can hold.
std::vector<LoadedSegment> LoadImage(const Board& board, MemoryMap& map, const Image& image, LoadMode mode);
// `--load FILE@ADDRESS`: each file placed whole inside one region.
void LoadHostFiles(MemoryMap& map, const std::vector<HostLoad>& loads);
// Every UART input names a port the board declares; checked before anything runs.
void CheckUartInput(const Board& board, const std::vector<UartInput>& inputs);
// Every memory action must land inside one region; checked before anything runs.
void CheckHostActions(const MemoryMap& map, const std::vector<HostAction>& actions);
// Applies host actions in order; a write to pc changes where execution continues. What
// the core changed about a value (sp's low bits) goes to `events`.
void ApplyHostActions(const std::vector<HostAction>& actions, MemoryMap& map, arm::Core* core, uint32_t* pc,
                      std::vector<Event>* events = nullptr);
std::vector<HostAction> OfKind(const std::vector<HostAction>& actions, HostAction::Kind kind);
// The run's result gets what the firmware printed, and the memory the options capture.
void TakeConsole(const Semihosting& semihosting, RunResult& res);
// The scenario's or stdin's input given to each UART, and what each keeps of its output.
void PrepareUarts(MemoryMap& map, const RunOptions& options);
// What each UART sent, into res.uart.
void TakeUarts(const MemoryMap& map, RunResult& res);
std::vector<std::vector<uint8_t>> Capture(const MemoryMap& map, const std::vector<MemoryCapture>& captures);
// Adds `f` to the run's fault chain: the first RunResult::kFaultsKept in order, then one
// entry that always holds the latest (faults_not_kept counts those past the first).
// False when `f` went into that last entry.
bool KeepFault(RunResult& res, const Fault& f);
// At the end of a run whose chain dropped faults: the road of the latest (named only now,
// so that a storm of faults does not cost a road each), also on res.fault when it is that one.
void NameLatestRoad(RunResult& res, std::vector<RoadBlock> road);
// A semihosting call that did something the firmware cannot tell (SYS_WRITE0 of an
// unterminated string), as one event per calling instruction with its count.
void RecordSemihostingProblem(std::vector<Event>& events, const SemihostingResult& r, uint32_t pc);
// Heap for SYS_HEAPINFO: from the end of the image's data in the region that holds the
// initial stack pointer, up to a stack of a quarter of that region (at most 64 KiB).
HeapInfo ComputeHeapInfo(const MemoryMap& map, const Image& image, uint32_t initial_sp);

}  // namespace faultline::machine
