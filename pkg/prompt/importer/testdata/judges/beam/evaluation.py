# A fixture in the layout of BEAM's evaluation.py: the rubric prompt filled
# by a chain of .replace calls (its <question> never replaced), and the
# equivalence check as a system and an f-string user message. Our own words.
from prompts import *


def same_event(first_paragraph: str, second_paragraph: str, llm) -> bool:
    system_msg = {
        "role": "system",
        "content": """
            Say YES when both snippets tell the same thing, else NO.
        """
    }
    user_msg = {
        "role": "user",
        "content": f"""One: {first_paragraph} \n
                       Two: {second_paragraph}
                    """
    }
    return "yes" in llm.invoke([system_msg, user_msg]).content.lower()


def evaluate_information_extraction(rubric, llm_response, probing_question, model):
    score = 0
    for item in rubric:
        prompt = unified_llm_judge_base_prompt.\
            replace("<rubric_item>", item).\
            replace("<llm_response>", llm_response)
        score += int(parse(model.invoke(prompt).content)['score'])
    return score / len(rubric)
