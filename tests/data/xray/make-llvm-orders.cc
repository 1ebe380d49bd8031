// The orders llvm-xray 14 leaves ties in, from the real code: libstdc++'s
// std::sort (what llvm::sort is in Debian's llvm-xray) and llvm::DenseMap's
// iteration order (llvm 14's headers, linked with libLLVM-14).  Writes
// llvm-orders.txt for tests/unit/test_xray_order.c; see make-llvm-orders.sh.
//
// Each case is a line "KIND N", a line of N inputs and a line of N results:
//   sort: keys; the indexes of the keys after std::sort by key (ties!)
//   dm32: int32 keys inserted in order into DenseMap<int32_t, unsigned>;
//         the insertion indexes in iteration order
//   dmu32: the same with DenseMap<uint32_t, unsigned>
//   pair: N (pid, tid) keys, "pid tid" pairs, inserted in order into
//         DenseMap<std::pair<uint64_t, int32_t>, unsigned> with the index of
//         their first insertion; the values in iteration order (as many as
//         there are distinct keys)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "llvm/ADT/DenseMap.h"

namespace {

struct Elem {
	int key;
	unsigned idx;
};

void sort_case(const std::vector<int> &keys)
{
	static std::set<std::vector<int>> done;
	std::vector<Elem> v;

	if (!done.insert(keys).second)
		return;
	for (unsigned i = 0; i < keys.size(); i++)
		v.push_back({keys[i], i});
	std::sort(v.begin(), v.end(), [](const Elem &l, const Elem &r) { return l.key < r.key; });
	std::printf("sort %zu\n", keys.size());
	for (size_t i = 0; i < keys.size(); i++)
		std::printf("%s%d", i ? " " : "", keys[i]);
	std::printf("\n");
	for (size_t i = 0; i < v.size(); i++)
		std::printf("%s%u", i ? " " : "", v[i].idx);
	std::printf("\n");
}

// McIlroy's "killer adversary for quicksort": values decided while std::sort
// compares them, so that sorting the result again takes the same (worst)
// path, where introsort falls back to heap sort.  Once max_solid values are
// decided, the others stay equal: the heap sort then meets ties too.
std::vector<int> adversary_val;
int gas, n_solid, candidate, max_solid;

bool adversary_less(unsigned x, unsigned y)
{
	if (adversary_val[x] == gas && adversary_val[y] == gas && n_solid < max_solid)
		adversary_val[x == (unsigned)candidate ? x : y] = n_solid++;
	if (adversary_val[x] == gas)
		candidate = (int)x;
	else if (adversary_val[y] == gas)
		candidate = (int)y;
	return adversary_val[x] < adversary_val[y];
}

std::vector<int> adversary(int n, int solid)
{
	std::vector<unsigned> ptr(n);
	gas = n - 1;
	n_solid = 0;
	max_solid = solid;
	candidate = 0;
	adversary_val.assign(n, gas);
	for (int i = 0; i < n; i++)
		ptr[i] = (unsigned)i;
	std::sort(ptr.begin(), ptr.end(), adversary_less);
	return adversary_val;
}

template <typename K> void dm_case(const char *kind, const std::vector<K> &keys)
{
	llvm::DenseMap<K, unsigned> m;
	for (unsigned i = 0; i < keys.size(); i++)
		m.insert({keys[i], i});
	std::printf("%s %zu\n", kind, keys.size());
	for (size_t i = 0; i < keys.size(); i++)
		std::printf(std::is_signed<K>::value ? "%s%d" : "%s%u", i ? " " : "", keys[i]);
	std::printf("\n");
	bool first = true;
	for (auto &e : m) {
		std::printf("%s%u", first ? "" : " ", e.second);
		first = false;
	}
	std::printf("\n");
}

void pair_case(const std::vector<std::pair<uint64_t, int32_t>> &keys)
{
	llvm::DenseMap<std::pair<uint64_t, int32_t>, unsigned> m;
	for (unsigned i = 0; i < keys.size(); i++)
		m.insert({keys[i], i});
	std::printf("pair %zu\n", keys.size());
	for (size_t i = 0; i < keys.size(); i++)
		std::printf("%s%llu %d", i ? " " : "", (unsigned long long)keys[i].first, keys[i].second);
	std::printf("\n");
	bool first = true;
	for (auto &e : m) {
		std::printf("%s%u", first ? "" : " ", e.second);
		first = false;
	}
	std::printf("\n");
}

} // namespace

int main()
{
	std::mt19937 rnd(15);
	const int sizes[] = {0, 1, 2, 3, 5, 15, 16, 17, 18, 31, 32, 33, 64, 100, 257};

	for (int n : sizes) {
		std::vector<int> equal(n, 7), mod3, few, any, up, down, pipe;
		for (int i = 0; i < n; i++) {
			mod3.push_back(i % 3);
			few.push_back((int)(rnd() % 5));
			any.push_back((int)(rnd() % (unsigned)n));
			up.push_back(i / 2);
			down.push_back((n - i) / 2);
			pipe.push_back(i < n / 2 ? i : n - i);
		}
		for (auto *v : {&equal, &mod3, &few, &any, &up, &down, &pipe})
			sort_case(*v);
		if (n >= 64)
			sort_case(adversary(n, n));
	}
	for (int solid : {24, 40, 60, 100})
		sort_case(adversary(257, solid));


	const int dm_sizes[] = {0, 1, 2, 47, 48, 49, 96, 97, 200, 400};
	for (int n : dm_sizes) {
		std::vector<int32_t> seq, spread;
		std::vector<uint32_t> high;
		for (int i = 0; i < n; i++) {
			seq.push_back(i + 1);
			spread.push_back((int32_t)(rnd() % 2000001u) - 1000000);
			high.push_back(0x80000000u + (uint32_t)(rnd() % 100000u) * 37u);
		}
		// distinct keys, as the callers give them
		std::sort(spread.begin(), spread.end());
		spread.erase(std::unique(spread.begin(), spread.end()), spread.end());
		std::shuffle(spread.begin(), spread.end(), rnd);
		std::sort(high.begin(), high.end());
		high.erase(std::unique(high.begin(), high.end()), high.end());
		std::shuffle(high.begin(), high.end(), rnd);
		dm_case("dm32", seq);
		dm_case("dm32", spread);
		dm_case("dmu32", high);
	}

	const int pair_sizes[] = {0, 1, 5, 48, 100, 300};
	for (int n : pair_sizes) {
		std::vector<std::pair<uint64_t, int32_t>> keys;
		for (int i = 0; i < n; i++) {
			uint64_t pid = rnd() % 4 == 0 ? 0 : rnd() % 70000;
			if (rnd() % 8 == 0)
				pid |= (uint64_t)(rnd() % 16) << 40;
			int32_t tid = (int32_t)(rnd() % 4 == 0 ? rnd() % 8 : rnd() % 4000000);
			keys.push_back({pid, tid});
			if (rnd() % 5 == 0)   // a key seen again
				keys.push_back(keys[rnd() % keys.size()]);
		}
		pair_case(keys);
	}
	return 0;
}
