async def __dsh_settled(awaitable):
    try:
        return await awaitable
    except Exception as error:
        return error
def __dsh_gather(*awaitables, return_exceptions=False):
    if return_exceptions:
        return __dsh_asyncio.gather(*[__dsh_settled(awaitable) for awaitable in awaitables])
    return __dsh_asyncio.gather(*awaitables)
