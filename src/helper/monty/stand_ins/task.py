def __dsh_task(awaitable):
    return awaitable
