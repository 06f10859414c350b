import enum


class EpisodeType(enum.Enum):
    message = "message"
    json = "json"
    text = "text"
