__dsh_list, __dsh_NotImplementedError = list, NotImplementedError
def __dsh_as_completed(awaitables, timeout=None):
    if timeout is not None:
        raise __dsh_NotImplementedError("asyncio.as_completed with a timeout is not supported on engine 'monty'")
    awaitables = __dsh_list(awaitables)
    settled = []
    started = []
    async def settle(awaitable):
        try:
            settled.append((True, await awaitable))
        except Exception as error:
            settled.append((False, error))
    async def next_result():
        if not started:
            started.append(True)
            await __dsh_asyncio.gather(*[settle(awaitable) for awaitable in awaitables])
        if not settled:
            raise __dsh_NotImplementedError("asyncio.as_completed's results awaited together are not supported on engine 'monty'")
        succeeded, value = settled.pop(0)
        if not succeeded:
            raise value
        return value
    return [next_result() for _ in awaitables]
