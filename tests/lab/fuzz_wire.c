/*
 * libFuzzer target for the exchange-message decoder: whatever bytes a peer
 * sends, lab_wire_decode() must reject them with a message or accept a
 * message that re-encodes to the very same bytes.
 *   clang -g -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *	tests/lab/fuzz_wire.c \
 *	-libverbs && ./a.out tests/lab/corpus
 */
#include "../../lab/support.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t again[LAB_WIRE_SIZE];
	struct lab_dest d;
	char err[256] = "";

	if (lab_wire_decode(data, size, &d, err, sizeof(err))) {
		if (!err[0])
			abort(); /* a rejection must say why */
		return 0;
	}
	lab_wire_encode(&d, again);
	if (size != LAB_WIRE_SIZE || memcmp(again, data, size))
		abort(); /* accepted, but not what was sent */
	return 0;
}
