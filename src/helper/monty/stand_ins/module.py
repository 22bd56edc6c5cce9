__dsh_ImportError = ImportError
def __dsh_module():
    class module:
        pass
    return module()
