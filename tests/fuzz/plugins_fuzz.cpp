// libFuzzer target for the plugins' parsers of outside input, grouped in
// one binary so run.sh compiles the shared sources (the SDK's JSON) once.
// Built and run by tests/fuzz/run.sh plugins with
// -fsanitize=fuzzer,address,undefined.
//
// The first input byte picks the sub-target (its value mod 6), the rest is
// its input:
//   0  upload_body_fuzz.cpp        the files plugin's upload body scanner
//   1  ws_frames_fuzz.cpp          the PTY WebSocket framing and JSON frames
//   2  commands_file_fuzz.cpp      the commands file and its byte sizes
//   3  url_policy_fuzz.cpp         the browser plugin's URL policy
//   4  resume_position_fuzz.cpp    Last-Event-ID / ?after= of the agents wire
//   5  agent_definitions_fuzz.cpp  agent definition bodies and agents files
// Each file says what it checks; a broken invariant aborts with a message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      abx::fuzz::fuzzUploadBody(rest);
      break;
    case 1:
      abx::fuzz::fuzzWsFrames(rest);
      break;
    case 2:
      abx::fuzz::fuzzCommandsFile(rest);
      break;
    case 3:
      abx::fuzz::fuzzUrlPolicy(rest);
      break;
    case 4:
      abx::fuzz::fuzzResumePosition(rest);
      break;
    default:
      abx::fuzz::fuzzAgentDefinitions(rest);
      break;
  }
  return 0;
}
