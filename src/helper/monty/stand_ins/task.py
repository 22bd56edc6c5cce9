def __dsh_task(awaitable):
    return awaitable
__dsh_NotImplementedError = NotImplementedError
def __dsh_task_unkept(awaitable):
    raise __dsh_NotImplementedError("a task of asyncio.create_task that the program does not keep is not supported on engine 'monty': its work would start only when it is awaited")
