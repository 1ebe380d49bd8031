/* A C++ program for tests/golden/test_xray_yaml.py: llvm-xray demangles these names. */
#include <vector>
#include <string>
#include <map>
#include <cstdio>
#include <cstdlib>
extern "C" { int __xray_log_select_mode(const char*); int __xray_log_init_mode(const char*, const char*); int __xray_patch(void); int __xray_log_finalize(void); int __xray_log_flushLog(void); }
namespace ns { struct Widget { int v; __attribute__((noinline)) int get(int x) const { return v + x; } __attribute__((noinline)) static Widget make(int v) { return Widget{v}; } };
template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
__attribute__((noinline)) int over(int a) { return a + 1; }
__attribute__((noinline)) double over(double a) { return a + 1; }
namespace { __attribute__((noinline)) int anon(int a) { return a * 7; } }
}
__attribute__((noinline)) std::string str(const std::map<int, std::vector<std::string>> &m) { return m.empty() ? "e" : "n"; }
int main() {
  __xray_log_select_mode("xray-fdr"); __xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0"); __xray_patch();
  auto lam = [](int x) __attribute__((noinline)) { return x * 2; };
  int s = ns::Widget::make(3).get(4) + ns::twice(5) + (int)ns::twice(2.5) + ns::over(1) + (int)ns::over(2.0) + ns::anon(3) + lam(4);
  std::map<int, std::vector<std::string>> m; s += str(m).size();
  printf("%d\n", s);
  __xray_log_finalize(); __xray_log_flushLog();
}
