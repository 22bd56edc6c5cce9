__dsh_RuntimeError = RuntimeError
def __dsh_asyncio_run(main, *, debug=None):
    # The program is the body of a coroutine already running on the loop, as on CPython.
    raise __dsh_RuntimeError("asyncio.run() cannot be called from a running event loop")
