/*
 * Text columns as dictionary codes: each distinct byte string is made a
 * Python str once, and a column holds 32-bit codes (0: no value).  The
 * dictionary is the library's (src/common/strdict.h, compiled into the
 * extension by common.c); its entry e is code e + 1.
 */
#include "ext.h"

#include "common/strdict.h"

struct strdict {
	struct tmx_strdict d;
};

struct strdict *strdict_new(void)
{
	return calloc(1, sizeof(struct strdict));
}

void strdict_free(struct strdict *d)
{
	if (!d)
		return;
	tmx_strdict_free(&d->d);
	free(d);
}

uint32_t strdict_code(struct strdict *d, const char *s, size_t n)
{
	int64_t e = tmx_strdict_entry(&d->d, s, n, SIZE_MAX, SIZE_MAX);

	return e < 0 ? 0 : (uint32_t)e + 1;
}

PyObject *strdict_list(const struct strdict *d)
{
	PyObject *list = PyList_New((Py_ssize_t)d->d.n + 1);

	if (!list)
		return NULL;
	PyList_SET_ITEM(list, 0, Py_NewRef(Py_None));
	for (size_t e = 0; e < d->d.n; e++) {
		size_t len;
		const uint8_t *at = tmx_strdict_at(&d->d, e, &len);
		PyObject *s = ext_text((const char *)at, len);

		if (!s) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)e + 1, s);
	}
	return list;
}
