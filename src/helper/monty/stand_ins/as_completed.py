__dsh_list = list
def __dsh_as_completed(awaitables, timeout=None):
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
        succeeded, value = settled.pop(0)
        if not succeeded:
            raise value
        return value
    return [next_result() for _ in awaitables]
