def read_files(directory_fd: int, names: list[str], follow: bool, /) -> list[bytes | int | None]: ...
def write_files(
    directory_fd: int,
    names: list[str],
    temporary_names: list[str],
    values: list[bytes | bytearray | memoryview],
    /,
) -> int: ...
