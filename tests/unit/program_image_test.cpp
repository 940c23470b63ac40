// ProgramImage: the globals a fork-join master ships to workers on other
// ranks are the program's, not the runtime's nor the C library's.
#include "api/program_image.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

// The "program's" globals: one initialised (.data), one zeroed (.bss), one
// file-static.
long image_test_initialised = 17;
double image_test_zeroed[512];
static int image_test_static = 3;
char *image_test_heap_pointer;

// Stands for the runtime's state: a variable of namespace rdsm.
namespace rdsm {
long image_test_runtime_state = 5;
}

namespace {

using rdsm::fj::ProgramImage;

TEST(ProgramImage, ShipsTheProgramsGlobalsAndKeepsTheRuntimes) {
  ProgramImage image;
  std::string why;
  ASSERT_TRUE(image.describe(why)) << why;
  ASSERT_GT(image.bytes(), sizeof image_test_zeroed);
  std::vector<uint8_t> copy(image.bytes());
  image.pack(copy.data());

  // What a worker does with the master's copy: every program global comes
  // back as it was packed; the runtime's own and the C library's stay.
  image_test_initialised = 99;
  image_test_zeroed[100] = 2.5;
  image_test_static = 4;
  rdsm::image_test_runtime_state = 6;
  FILE *out = stdout;
  image.unpack(copy.data());
  EXPECT_EQ(image_test_initialised, 17);
  EXPECT_EQ(image_test_zeroed[100], 0.0);
  EXPECT_EQ(image_test_static, 3);
  EXPECT_EQ(rdsm::image_test_runtime_state, 6);
  EXPECT_EQ(stdout, out);
}

TEST(ProgramImage, NamesTheGlobalsThatPointIntoAGivenRange) {
  ProgramImage image;
  std::string why;
  ASSERT_TRUE(image.describe(why)) << why;
  std::vector<char> block(256);
  image_test_heap_pointer = block.data() + 10;
  auto lo = reinterpret_cast<uintptr_t>(block.data()), hi = lo + block.size();
  auto inside = [&](uintptr_t v) { return v >= lo && v < hi; };
  std::vector<std::string> names = image.pointing_into(inside, 8);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "image_test_heap_pointer");
  image_test_heap_pointer = nullptr;
  EXPECT_TRUE(image.pointing_into(inside, 8).empty());
}

TEST(ProgramImage, LayoutNamesTheExecutableAndTheCLibrary) {
  ProgramImage image;
  std::string why;
  ASSERT_TRUE(image.describe(why)) << why;
  EXPECT_NE(image.layout().library_address, 0u);
  EXPECT_EQ(image.layout().image_bytes, image.bytes());
  EXPECT_GT(image.layout().executable_bytes, 0u);
}

TEST(ProgramImage, RuntimeSymbolsAreThoseOfNamespaceRdsm) {
  EXPECT_TRUE(rdsm::fj::is_runtime_symbol("_ZN4rdsm2fj12_GLOBAL__N_11gE"));
  EXPECT_TRUE(rdsm::fj::is_runtime_symbol("_ZZN4rdsm5statsEvE1s"));
  EXPECT_TRUE(rdsm::fj::is_runtime_symbol("_ZGVZN4rdsm5statsEvE1s"));
  EXPECT_FALSE(rdsm::fj::is_runtime_symbol("image_test_initialised"));
  EXPECT_FALSE(rdsm::fj::is_runtime_symbol("_ZN12_GLOBAL__N_11gE"));
  EXPECT_FALSE(rdsm::fj::is_runtime_symbol("_ZN5rdsmx1gE"));
}

TEST(ProgramImage, TheToolchainsLibrariesKeepTheirOwnState) {
  // A sanitizer's runtime, libgcc and a static libstdc++ linked into the program.
  for (const char *name : {"__asan_option_detect_stack_use_after_return", "__cpu_model",
                           "_ZN11__sanitizer14PageSizeCachedE", "_ZN6__asanL9allocatorE",
                           "_ZZN11__sanitizer9GetTlsVarEvE1v", "_ZGVZN6__lsan4initEvE1x",
                           "_ZN14__interception10real_mmapE", "_ZNKSt6locale5_Impl4nameE",
                           "_ZSt4cout", "_ZN9__gnu_cxx9__freeresE"})
    EXPECT_TRUE(rdsm::fj::is_runtime_symbol(name)) << name;
  // The program's own: C names, static locals, internal linkage, its namespaces.
  for (const char *name : {"P", "_start_time", "_ZZ4mainE5count", "_ZL5tally", "_ZN5water5boxesE",
                           "_ZN12_GLOBAL__N_11gE", "_ZNK5Stack4sizeE"})
    EXPECT_FALSE(rdsm::fj::is_runtime_symbol(name)) << name;
}

}  // namespace
