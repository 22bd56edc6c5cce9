async def __dsh_settled(awaitable):
    try:
        return await awaitable
    except Exception as error:
        return error
def __dsh_gather(*awaitables, return_exceptions=False):
    # Made first for its check of the arguments, which raises as CPython's gather does.
    gathered = __dsh_asyncio.gather(*awaitables)
    if return_exceptions:
        return __dsh_asyncio.gather(*[__dsh_settled(awaitable) for awaitable in awaitables])
    return gathered
