"""The zarrforge demo: build a small hierarchy on the embedded in-memory store,
write to it, read it back, and print each step.

Run it with ``make demo`` (which installs everything into .venv first).
"""

from __future__ import annotations

import numpy as np

import zarrforge as zf


def main() -> None:
    store_url = "memory://demo"
    print(f"Creating a hierarchy on the embedded store {store_url!r}")
    root = zf.create_group(store_url, attributes={"title": "zarrforge demo"})
    weather = root.create_group("weather", attributes={"source": "synthetic"})

    temperature = weather.create_array(
        "temperature",
        shape=(365, 180, 360),
        dtype="float32",
        chunks=(30, 45, 90),
        compressors=[{"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
        fill_value=float("nan"),
        dimension_names=["day", "lat", "lon"],
        attributes={"units": "degC"},
    )
    print(
        f"  created {temperature.name}: shape={temperature.shape} dtype={temperature.dtype} "
        f"chunks={temperature.chunks} ({temperature.nchunks} chunks)"
    )

    rng = np.random.default_rng(42)
    days = np.arange(365, dtype="float32")[:, None, None]
    field = 15 + 10 * np.sin(days / 365 * 2 * np.pi) + rng.normal(0, 1, (365, 180, 360)).astype("float32")
    temperature[:] = field
    print(f"  wrote {field.nbytes / 2**20:.1f} MiB into {temperature.nchunks_initialized} stored chunks")

    stations = weather.create_array(
        "stations",
        shape=(1000,),
        dtype="int32",
        chunks=(256,),
        compressors=[{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}],
        fill_value=-1,
    )
    stations[100:200] = np.arange(100, dtype="int32")
    print(
        f"  created {stations.name}; wrote 100 of 1000 values "
        f"({stations.nchunks_initialized} of {stations.nchunks} chunks stored)"
    )

    print("Reading back")
    reopened = zf.open_group(store_url, mode="r")
    print(reopened.tree())
    t = reopened["weather/temperature"]
    july = t[181:212]
    assert np.array_equal(july, field[181:212]), "read-back mismatch"
    print(f"  July mean temperature: {float(np.mean(july)):.2f} {t.attrs['units']}")
    corners = t.oindex[[0, 364], [0, 179], [0, 359]]
    assert np.array_equal(corners, field[np.ix_([0, 364], [0, 179], [0, 359])])
    print(f"  orthogonal selection of the corners: shape {corners.shape}")
    points = t.vindex[[0, 100, 200], [10, 20, 30], [40, 50, 60]]
    assert np.array_equal(points, field[[0, 100, 200], [10, 20, 30], [40, 50, 60]])
    print(f"  three points by coordinates: {np.round(points, 2).tolist()}")
    s = reopened["weather/stations"]
    assert s[99] == -1 and s[150] == 50
    print(f"  stations[99] (never written) = {s[99]} (the fill value); stations[150] = {s[150]}")
    print("Metadata of weather/temperature:")
    print(t.info)
    print("All values read back equal the values written.")


if __name__ == "__main__":
    main()
