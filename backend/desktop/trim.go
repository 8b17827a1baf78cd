package desktop

/*
#include <malloc.h>
*/
import "C"

// trimCHeap gives the C heap's free pages back to the OS (glibc's malloc_trim). The window's
// process is half C: SQLite's page caches and statements, GTK and the WebKit UI process side
// all allocate with malloc, and glibc keeps what a peak freed in its arenas until asked.
func trimCHeap() { C.malloc_trim(0) }
