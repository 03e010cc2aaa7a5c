"""CUDA arrays without a GPU, for the runtime's argument checks and the fake
driver (fake_cuda.c)."""


class FakeCudaArray:
    """__cuda_array_interface__ over an address that nothing dereferences."""

    def __init__(self, shape, typestr, address=4096, strides=None, readonly=False,
                 stream=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (address, readonly),
            "strides": strides, "version": 3, "stream": stream}
