// The files plugin's base64 codec alone, per kernel, against POCO's codec
// (what the plugin used before) on the same 48 KiB / 64 KiB pieces the
// download and upload routes hand it. See docs/performance.md ("File
// streaming"): this is the evidence for the kernel choice there.
//
//   build/bin/abx_base64_codec_bench [--benchmark_min_time=1]
//
// Benchmarks (bytes/s counts file bytes: encoder input, decoder output):
//   Encode/<kernel>        base64::encoderOf(kernel) over 48 KiB
//   Decode/<kernel>        base64::decoderOf(kernel) over 64 KiB of text
//   StreamEncode           Base64StreamEncoder (the active kernel), 48 KiB pieces
//   StreamDecode           Base64StreamDecoder, 64 KiB pieces
//   StreamDecodeWrapped    the same text broken every 76 characters by "\n"
//   PocoEncode / PocoDecode  Poco::Base64Encoder / Decoder over the same pieces
#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/MemoryStream.h>
#include <benchmark/benchmark.h>

#include <random>
#include <sstream>
#include <string>

#include "base64_codec.h"
#include "base64_stream.h"

namespace {

namespace b64 = abx::plugins::files::base64;
using abx::plugins::files::Base64StreamDecoder;
using abx::plugins::files::Base64StreamEncoder;

constexpr std::size_t kBytes = 48u << 10;  // 64 KiB of text

const std::string& bytes() {
  static const std::string data = [] {
    std::mt19937 rng(1);
    std::string s(kBytes, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
  }();
  return data;
}

const std::string& text() {
  static const std::string encoded = [] {
    Base64StreamEncoder enc;
    std::string out;
    enc.update(bytes(), out);
    enc.finish(out);
    return out;
  }();
  return encoded;
}

void setKernelLabel(benchmark::State& state, b64::Kernel kernel) {
  state.SetLabel(kernel == b64::Kernel::avx2 ? "avx2" : "scalar");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}

void Encode(benchmark::State& state) {
  auto kernel = static_cast<b64::Kernel>(state.range(0));
  auto fn = b64::encoderOf(kernel);
  if (!fn) return state.SkipWithError("kernel not available on this CPU");
  std::string out(text().size(), '\0');
  for (auto _ : state) {
    fn(reinterpret_cast<const unsigned char*>(bytes().data()), kBytes, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  setKernelLabel(state, kernel);
}
BENCHMARK(Encode)
    ->Arg(static_cast<int>(b64::Kernel::scalar))
    ->Arg(static_cast<int>(b64::Kernel::avx2));

void Decode(benchmark::State& state) {
  auto kernel = static_cast<b64::Kernel>(state.range(0));
  auto fn = b64::decoderOf(kernel);
  if (!fn) return state.SkipWithError("kernel not available on this CPU");
  std::string out(kBytes, '\0');
  for (auto _ : state) {
    auto used = fn(text().data(), text().size(), reinterpret_cast<unsigned char*>(out.data()));
    benchmark::DoNotOptimize(used);
  }
  setKernelLabel(state, kernel);
}
BENCHMARK(Decode)
    ->Arg(static_cast<int>(b64::Kernel::scalar))
    ->Arg(static_cast<int>(b64::Kernel::avx2));

void StreamEncode(benchmark::State& state) {
  std::string out;
  Base64StreamEncoder enc;
  for (auto _ : state) {
    out.clear();
    enc.update(bytes(), out);
    benchmark::DoNotOptimize(out.data());
  }
  setKernelLabel(state, b64::activeKernel());
}
BENCHMARK(StreamEncode);

void decodeStream(benchmark::State& state, const std::string& input) {
  std::string out;
  out.reserve(kBytes);
  Base64StreamDecoder dec;
  for (auto _ : state) {
    out.clear();
    if (!dec.update(input, out)) return state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out.data());
  }
  setKernelLabel(state, b64::activeKernel());
}

void StreamDecode(benchmark::State& state) { decodeStream(state, text()); }
BENCHMARK(StreamDecode);

void StreamDecodeWrapped(benchmark::State& state) {
  std::string wrapped;
  for (std::size_t i = 0; i < text().size(); i += 76) wrapped += text().substr(i, 76) + "\n";
  decodeStream(state, wrapped);
}
BENCHMARK(StreamDecodeWrapped);

void PocoEncode(benchmark::State& state) {
  for (auto _ : state) {
    std::ostringstream out;
    Poco::Base64Encoder enc(out);
    enc.rdbuf()->setLineLength(0);
    enc.write(bytes().data(), static_cast<std::streamsize>(kBytes));
    enc.close();
    benchmark::DoNotOptimize(out.view().data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}
BENCHMARK(PocoEncode);

void PocoDecode(benchmark::State& state) {
  std::string out(kBytes, '\0');
  for (auto _ : state) {
    Poco::MemoryInputStream in(text().data(), static_cast<std::streamsize>(text().size()));
    Poco::Base64Decoder dec(in);
    dec.read(out.data(), static_cast<std::streamsize>(kBytes));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}
BENCHMARK(PocoDecode);

}  // namespace

BENCHMARK_MAIN();
